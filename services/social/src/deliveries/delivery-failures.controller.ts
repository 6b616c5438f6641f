import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { DeliveryFailuresService } from './delivery-failures.service.js';

@Controller()
export class DeliveryFailuresController {
  constructor(private readonly failures: DeliveryFailuresService) {}

  @MessagePattern(Patterns.social.deliveryFailures)
  list(@Payload() message: RpcEnvelope<unknown>) {
    parseRequest(Patterns.social.deliveryFailures, message);
    return this.failures.list();
  }

  @MessagePattern(Patterns.social.dismissDeliveryFailure)
  dismiss(@Payload() message: RpcEnvelope<unknown>) {
    return this.failures.dismiss(parseRequest(Patterns.social.dismissDeliveryFailure, message).host);
  }
}
