import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { FederationHttpService } from './federation-http.service.js';

@Controller()
export class FederationController {
  constructor(private readonly http: FederationHttpService) {}

  @MessagePattern(Patterns.social.http)
  handle(@Payload() message: RpcEnvelope<unknown>) {
    return this.http.handle(parseRequest(Patterns.social.http, message));
  }
}
