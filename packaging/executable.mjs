// Whether a file is an executable of a platform: its format (ELF, Mach-O,
// PE) and CPU, read from its first bytes. The npm platform packages and the
// VS Code platform packages check the binary they are given with it, so
// that a release never ships one platform's binary under another's name.
import fs from "node:fs";

/**
 * Why `file` is not an executable for `os` (linux, darwin, win32) and `cpu`
 * (x64, arm64), or undefined when it is one. ELF cannot tell glibc from musl.
 */
export function executableMismatch(file, os, cpu) {
  const handle = fs.openSync(file, "r");
  const head = Buffer.alloc(65536);
  const length = fs.readSync(handle, head, 0, head.length, 0);
  fs.closeSync(handle);
  const bytes = head.subarray(0, length);
  const what = `${file} is not a ${os}-${cpu} executable`;
  if (os === "linux") {
    if (length < 20 || bytes.readUInt32BE(0) !== 0x7f454c46 || bytes[4] !== 2 || bytes[5] !== 1) {
      return `${what} (not a 64-bit little-endian ELF file)`;
    }
    const machine = bytes.readUInt16LE(18);
    if (machine !== { x64: 0x3e, arm64: 0xb7 }[cpu]) {
      return `${what} (its ELF machine is 0x${machine.toString(16)})`;
    }
  } else if (os === "darwin") {
    if (length >= 4 && bytes.readUInt32BE(0) === 0xcafebabe) {
      return undefined; // a universal binary
    }
    if (length < 8 || bytes.readUInt32LE(0) !== 0xfeedfacf) {
      return `${what} (not a 64-bit Mach-O file)`;
    }
    const type = bytes.readUInt32LE(4);
    if (type !== { x64: 0x01000007, arm64: 0x0100000c }[cpu]) {
      return `${what} (its Mach-O CPU type is 0x${type.toString(16)})`;
    }
  } else if (os === "win32") {
    const pe = length >= 64 && bytes.toString("latin1", 0, 2) === "MZ" ? bytes.readUInt32LE(0x3c) : -1;
    if (pe < 0 || pe + 6 > length || bytes.toString("latin1", pe, pe + 4) !== "PE\0\0") {
      return `${what} (not a PE file)`;
    }
    const machine = bytes.readUInt16LE(pe + 4);
    if (machine !== { x64: 0x8664 }[cpu]) {
      return `${what} (its PE machine is 0x${machine.toString(16)})`;
    }
  } else {
    return `${what} (no such platform)`;
  }
  return undefined;
}
