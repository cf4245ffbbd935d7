// The web language server's own worker (extension.ts starts it where the
// host allows). It says it runs, then takes the module's bytes from the
// extension as its first message, and serves the protocol after it.
import { READY, serve } from "./server";

type Scope = Parameters<typeof serve>[0] & {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
};
const scope = self as unknown as Scope;
scope.onmessage = (event) => {
  // The reader of the protocol takes `onmessage` over from here.
  serve(scope, new Uint8Array(event.data as ArrayBuffer));
};
scope.postMessage(READY);
