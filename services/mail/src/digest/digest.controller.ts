import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { Patterns, type DigestRunResult } from '@blog/contracts';
import { DigestService } from './digest.service.js';

@Controller()
export class DigestController {
  constructor(private readonly digest: DigestService) {}

  /** The owner's "send it now": the same job for the current week, under the same once-per-subscriber rule. */
  @MessagePattern(Patterns.mail.runDigest)
  run(): Promise<DigestRunResult> {
    return this.digest.run('manual');
  }
}
