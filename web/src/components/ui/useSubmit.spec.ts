import type { StatusMessage } from './StatusLine';
import { runSubmit, type SubmitOptions } from './useSubmit';

/** A form's state as plain values, with the order in which pending changed. */
function form() {
  const state = {
    running: { current: false },
    pending: [] as boolean[],
    message: null as StatusMessage,
    setPending: (pending: boolean) => state.pending.push(pending),
    setMessage: (message: StatusMessage) => {
      state.message = message;
    },
  };
  return state;
}

const failure: SubmitOptions['failure'] = (error) => `Failed: ${(error as Error).message}`;

describe('runSubmit', () => {
  test('success: pending, then the success text, then not pending', async () => {
    const state = form();
    state.message = { kind: 'error', text: 'the last try' };
    const seen: unknown[] = [];
    const ok = await runSubmit(
      state,
      async () => {
        seen.push([...state.pending], state.message);
        return 'Saved.';
      },
      { failure },
    );
    expect(ok).toBe(true);
    // While the work ran the form was pending and the old message gone.
    expect(seen).toEqual([[true], null]);
    expect(state.pending).toEqual([true, false]);
    expect(state.message).toEqual({ kind: 'success', text: 'Saved.' });
    expect(state.running.current).toBe(false);
  });

  test('work with no success text leaves the message empty', async () => {
    const state = form();
    expect(await runSubmit(state, async () => undefined, { failure })).toBe(true);
    expect(state.message).toBeNull();
  });

  test("failure: the failure's text (also when it is looked up), and pending ends", async () => {
    const state = form();
    const ok = await runSubmit(
      state,
      async () => {
        throw new Error('offline');
      },
      { failure: async (error) => `Later: ${(error as Error).message}` },
    );
    expect(ok).toBe(false);
    expect(state.message).toEqual({ kind: 'error', text: 'Later: offline' });
    expect(state.pending).toEqual([true, false]);
    expect(state.running.current).toBe(false);
  });

  test('a failure answering null leaves no message (the form moved on to another step)', async () => {
    const state = form();
    await runSubmit(state, () => Promise.reject(new Error('two-factor')), { failure: () => null });
    expect(state.message).toBeNull();
    expect(state.pending).toEqual([true, false]);
  });

  test('a second submit while one runs is ignored', async () => {
    const state = form();
    let finish!: () => void;
    const calls: string[] = [];
    const first = runSubmit(
      state,
      () => new Promise<void>((resolve) => ((finish = resolve), calls.push('first'))),
      { failure },
    );
    expect(await runSubmit(state, async () => void calls.push('second'), { failure })).toBe(false);
    finish();
    expect(await first).toBe(true);
    expect(calls).toEqual(['first']);
    // Once it ended, the form submits again.
    expect(await runSubmit(state, async () => void calls.push('third'), { failure })).toBe(true);
    expect(calls).toEqual(['first', 'third']);
  });

  test('leavesPage: success keeps the form pending and refusing submits; a failure ends pending', async () => {
    const state = form();
    expect(await runSubmit(state, async () => undefined, { failure, leavesPage: true })).toBe(true);
    expect(state.pending).toEqual([true]);
    expect(await runSubmit(state, async () => undefined, { failure })).toBe(false);

    const failed = form();
    await runSubmit(failed, () => Promise.reject(new Error('wrong password')), { failure, leavesPage: true });
    expect(failed.pending).toEqual([true, false]);
    expect(failed.message).toEqual({ kind: 'error', text: 'Failed: wrong password' });
  });
});
