import { JsonLogger } from '@blog/server-kit';
import { InboxRefusalLog } from './inbox-refusals.js';

describe('InboxRefusalLog', () => {
  it('writes one line per interval with the counts by reason, none per refusal at info', async () => {
    const lines: unknown[] = [];
    const logger = new (class extends JsonLogger {
      override event(
        level: Parameters<JsonLogger['event']>[0],
        msg: string,
        fields?: Record<string, unknown>,
      ) {
        if (level !== 'debug') lines.push({ level, msg, fields });
      }
    })('social', 'info');
    const log = new InboxRefusalLog(logger, 50);
    for (let i = 0; i < 1200; i++) log.refused(i % 3 === 0 ? 'signature' : 'unsigned');
    expect(lines).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines).toEqual([
      {
        level: 'info',
        msg: 'federation inbox POSTs refused',
        fields: { byReason: { signature: 400, unsigned: 800 }, seconds: 0.05 },
      },
    ]);
    log.flush();
    expect(lines).toHaveLength(1);
  });
});
