/**
 * The one polling wait of the tests, for conditions no fake announces (rows in a database, processes, files).
 * Waits on a fake's own events (`fake.next(...)`) where there is one. Generous limits only: no timed assertions.
 */
const POLL_MS = 10;

/** Resolves with `probe`'s first value that is not undefined, null or false; rejects naming `what` after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what = 'condition',
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
