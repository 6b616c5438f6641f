import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';

const require = createRequire(import.meta.url);

function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * FFMPEG_PATH / FFPROBE_PATH, else the system's binary on PATH, else the npm-shipped one (the
 * media service's video work and the export's removal of location data from videos).
 */
export function resolveBinaries(env: NodeJS.ProcessEnv = process.env): { ffmpeg: string; ffprobe: string } {
  return {
    ffmpeg:
      env.FFMPEG_PATH ||
      onPath('ffmpeg', env) ||
      (require('@ffmpeg-installer/ffmpeg') as { path: string }).path,
    ffprobe:
      env.FFPROBE_PATH ||
      onPath('ffprobe', env) ||
      (require('@ffprobe-installer/ffprobe') as { path: string }).path,
  };
}

export function run(
  binary: string,
  args: string[],
  timeoutMs = 60_000,
): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      args,
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const text = stderr.toString('utf8');
        if (error) reject(Object.assign(error, { stderr: text }));
        else resolve({ stdout, stderr: text });
      },
    );
  });
}
