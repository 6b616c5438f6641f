/**
 * The faults benchmark's checks as a test (`npm run bench -- faults`, shorter): in the
 * production topology with two posts replicas, reads keep answering and every intended write
 * is stored exactly once while a replica is SIGKILLed and while nats-server restarts. The
 * writer sends an Idempotency-Key and retries a failed write once with it.
 */
import { missingPrograms } from '../../scripts/prod-stack.mjs';
import { killReplicaUnderLoad, restartNatsUnderLoad, startFaultRig } from '../../scripts/bench/faults.mjs';

type FaultResult = Awaited<ReturnType<typeof killReplicaUnderLoad>>;

const missing = missingPrograms().map((program: { name: string }) => program.name);
const suite = missing.length ? describe.skip : describe;
const suiteName = `faults under load${missing.length ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`;
const SECONDS = 6;

/** What must hold after a fault: no failed read, each write once, none lost unseen. */
function expectSafe(result: FaultResult) {
  expect({
    non2xxReads: result.reads.non2xx,
    readErrors: result.reads.errors,
    failedProbeReads: result.probeReads.failed,
    acknowledgedNotExactlyOnce: result.acknowledgedNotExactlyOnce,
    unacknowledgedButStored: result.unacknowledgedButStored,
    storedMoreThanOnce: result.storedMoreThanOnce,
  }).toEqual({
    non2xxReads: 0,
    readErrors: 0,
    failedProbeReads: 0,
    acknowledgedNotExactlyOnce: 0,
    unacknowledgedButStored: 0,
    storedMoreThanOnce: 0,
  });
  expect(result.writesAcknowledged).toBeGreaterThan(0);
  expect(result.reads.requests).toBeGreaterThan(100);
}

suite(suiteName, () => {
  let rig: Awaited<ReturnType<typeof startFaultRig>> | undefined;

  beforeAll(async () => {
    rig = await startFaultRig({ posts: 100 });
  }, 180_000);
  afterAll(() => rig?.stop());

  test('a posts replica SIGKILLed: every read answered, every write stored once', async () => {
    expectSafe(await killReplicaUnderLoad(rig!, SECONDS));
  }, 90_000);

  test('nats-server restarted: every read answered (retried or stale), every write stored once', async () => {
    expectSafe(await restartNatsUnderLoad(rig!, SECONDS));
  }, 90_000);
});
