import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { MailText, Patterns, RpcContracts, type RpcEnvelope } from '@blog/contracts';
import { parseRequest, RpcError } from '@blog/server-kit';
import { PreferencesService } from './preferences.service.js';
import { SubscriberImportService } from './subscriber-import.service.js';
import { SubscriberListRepository } from './subscriber-list.repository.js';

/** The preferences page's RPCs, and the owner's list: counts, export, bounce resets and imports. */
@Controller()
export class SubscriberAdminController {
  constructor(
    private readonly preferences: PreferencesService,
    private readonly list: SubscriberListRepository,
    private readonly imports: SubscriberImportService,
  ) {}

  @MessagePattern(Patterns.mail.preferences)
  getPreferences(@Payload() message: RpcEnvelope<unknown>) {
    const result = RpcContracts[Patterns.mail.preferences].request.safeParse(message.data);
    if (!result.success) throw RpcError.notFound(MailText.invalidLink);
    return this.preferences.get(result.data.token);
  }

  @MessagePattern(Patterns.mail.preferencesUpdate)
  updatePreferences(@Payload() message: RpcEnvelope<unknown>) {
    const data = message.data as { token?: unknown } | undefined;
    // A malformed token is an invalid link (404), as for the other links; then the fields.
    if (!RpcContracts[Patterns.mail.preferences].request.safeParse({ token: data?.token }).success)
      throw RpcError.notFound(MailText.invalidLink);
    return this.preferences.update(parseRequest(Patterns.mail.preferencesUpdate, message));
  }

  @MessagePattern(Patterns.mail.subscriberCounts)
  counts() {
    return this.list.counts();
  }

  @MessagePattern(Patterns.mail.subscriberExportPage)
  async exportPage(@Payload() message: RpcEnvelope<unknown>) {
    const { afterId, limit } = parseRequest(Patterns.mail.subscriberExportPage, message);
    const items = await this.list.exportPage(afterId, limit);
    return { items, nextAfterId: items.length === limit ? items[items.length - 1]!.id : null };
  }

  @MessagePattern(Patterns.mail.subscriberResetBounce)
  async resetBounce(@Payload() message: RpcEnvelope<unknown>) {
    const { id } = parseRequest(Patterns.mail.subscriberResetBounce, message);
    const row = await this.list.resetBounce(id);
    if (!row) throw RpcError.notFound('Subscriber not found');
    return row;
  }

  @MessagePattern(Patterns.mail.subscriberImportStart)
  importStart(@Payload() message: RpcEnvelope<unknown>) {
    const { id, consented, frequency } = parseRequest(Patterns.mail.subscriberImportStart, message);
    return this.imports.start(consented, frequency, id);
  }

  @MessagePattern(Patterns.mail.subscriberImportRows)
  importRows(@Payload() message: RpcEnvelope<unknown>) {
    const { id, rows } = parseRequest(Patterns.mail.subscriberImportRows, message);
    return this.imports.rows(id, rows);
  }

  @MessagePattern(Patterns.mail.subscriberImportFinish)
  importFinish(@Payload() message: RpcEnvelope<unknown>) {
    const { id, error } = parseRequest(Patterns.mail.subscriberImportFinish, message);
    return this.imports.finish(id, error);
  }

  @MessagePattern(Patterns.mail.subscriberImportStatus)
  importStatus(@Payload() message: RpcEnvelope<unknown>) {
    return this.imports.status(parseRequest(Patterns.mail.subscriberImportStatus, message).id);
  }
}
