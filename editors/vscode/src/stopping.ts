// Stopping the client without losing the restart that follows it.

/**
 * How long a server has to answer `shutdown`. The library's default (2 s) is
 * short for a loaded machine, where a settings change then lost its restart.
 */
export const STOP_TIMEOUT_MS = 5000;

/** What `stopQuietly` needs of a language client. */
export interface Stoppable {
  stop(timeout?: number): Promise<void>;
}

/**
 * Stops a client, and never throws. A server slow to answer `shutdown`
 * makes the library's `stop` reject ("Stopping the server timed out");
 * awaited bare, that skipped the start after it, leaving no server and no
 * message. By then the library has moved the client to Stopped and ends the
 * process itself, so starting anew is safe.
 */
export async function stopQuietly(
  client: Stoppable,
  log: (line: string) => void,
  timeout: number = STOP_TIMEOUT_MS,
): Promise<void> {
  try {
    await client.stop(timeout);
  } catch (error) {
    log(`The server did not stop cleanly (${error}; it had ${timeout / 1000} s); it is ended, and a new one starts.`);
  }
}
