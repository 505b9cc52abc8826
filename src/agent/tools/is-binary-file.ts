/** Binary-file detection shared by the file tools: a NUL byte in the first 8 KiB marks a file as binary. */
import { open } from 'node:fs/promises';

const PROBE_BYTES = 8192;

/** Whether the file looks binary (a NUL byte in its first 8 KiB). Throws what `open` throws. */
export async function isBinaryFile(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const probe = Buffer.alloc(PROBE_BYTES);
    const { bytesRead } = await handle.read(probe, 0, probe.length, 0);
    return probe.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}
