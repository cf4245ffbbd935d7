// report-lsp's core as WebAssembly, from JavaScript: the module's C ABI
// (crates/report-wasm/src/abi.rs) wrapped in a few lines. The same file
// serves Node (the tests), the page's worker and the web extension.
//
//   const core = await load(bytesOrModule);
//   const report = core.open(textOrBytes, "name.report.json");
//   report.call("diagnostics");          // {name, report, diagnostics, omitted}
//   report.call("hover", {position: {line, character}});
//   report.close();
//
// Positions are 0-based lines and UTF-16 columns, as a JavaScript string
// counts them. A method's error is thrown as an Error with its message. A
// trap (a WebAssembly.RuntimeError: a panic, memory exhausted) leaves the
// open documents usable, but the instance's memory in doubt: load again.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Instantiates the module from its bytes or a compiled WebAssembly.Module. */
export async function load(source) {
  const module = source instanceof WebAssembly.Module ? source : await WebAssembly.compile(source);
  const instance = await WebAssembly.instantiate(module, {});
  return new Core(instance.exports);
}

class Core {
  constructor(exports) {
    this.exports = exports;
  }

  /** Copies `bytes` into a buffer of the module's, which the call it is passed to takes. */
  put(bytes) {
    // `>>> 0`: a pointer past 2 GiB comes back as a negative i32.
    const ptr = this.exports.rl_alloc(bytes.length) >>> 0;
    new Uint8Array(this.exports.memory.buffer, ptr, bytes.length).set(bytes);
    return [ptr, bytes.length];
  }

  /** Opens a report from its text (a string) or its bytes (UTF-8 or not, as a file holds them). */
  open(text, name = "report.json") {
    const bytes = typeof text === "string" ? encoder.encode(text) : new Uint8Array(text);
    const [textPtr, textLen] = this.put(bytes);
    let namePtr, nameLen;
    try {
      [namePtr, nameLen] = this.put(encoder.encode(name));
    } catch (error) {
      this.exports.rl_free(textPtr, textLen); // not taken by rl_open
      throw error;
    }
    return new Report(this, this.exports.rl_open(textPtr, textLen, namePtr, nameLen));
  }
}

class Report {
  constructor(core, handle) {
    this.core = core;
    this.handle = handle;
  }

  /** Answers `method` (see crates/report-wasm/README.md) with `params`. */
  call(method, params = {}) {
    const { exports } = this.core;
    const [ptr, len] = this.core.put(encoder.encode(JSON.stringify({ method, params })));
    const replyLen = exports.rl_call(this.handle, ptr, len) >>> 0;
    const reply = JSON.parse(decoder.decode(new Uint8Array(exports.memory.buffer, exports.rl_reply() >>> 0, replyLen)));
    if ("error" in reply) throw new Error(reply.error);
    return reply.result;
  }

  close() {
    this.core.exports.rl_close(this.handle);
  }
}
