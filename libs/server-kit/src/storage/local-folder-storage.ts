import { randomUUID } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import {
  mkdir,
  open,
  readFile,
  readdir,
  realpath,
  rename,
  rm,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertValidContentType, contentTypeForKey } from './content-type.js';
import { assertValidKey, assertValidPrefix, InvalidKeyError, isValidKey, publicUploadUrl } from './keys.js';
import {
  resolveRange,
  type ByteRange,
  type GetResult,
  type ObjectStat,
  type ObjectStorage,
  type PutOptions,
  type PutResult,
} from './object-storage.js';
import { ByteCounter, toReadable } from './streams.js';

interface Sidecar {
  contentType: string;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Objects as files under one root folder (the embedded default: `${DATA_DIR}/uploads`).
 *
 * - A key maps to the file `<root>/<key>`. Its content type lives in a sidecar file
 *   beside it, `.<name>.meta.json` (keys never start a segment with '.', so a sidecar can
 *   never be mistaken for an object); when the sidecar is missing (a file copied in by
 *   hand) the type is derived from the extension.
 * - A put streams into `.<name>.<uuid>.tmp` in the target folder, flushes it, writes the
 *   sidecar, then renames the temp file over the key: readers see the whole file or
 *   nothing, and a failed put removes its temp file.
 * - No path leaves the root: keys are validated, and every path is checked after
 *   `realpath`, so a symlink inside the root that points outside is treated as missing
 *   (reads, deletes) or refused (writes). Listing never follows symlinks.
 */
export class LocalFolderStorage implements ObjectStorage {
  readonly kind = 'local' as const;
  readonly root: string;
  private realRoot: Promise<string> | null = null;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async ensureReady(): Promise<void> {
    await this.rootReal();
  }

  async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<PutResult> {
    const source = toReadable(body);
    let tmp: string | null = null;
    let metaTmp: string | null = null;
    try {
      assertValidKey(key);
      assertValidContentType(options.contentType);
      options.signal?.throwIfAborted();
      const dir = await this.writableDir(key);
      const name = basename(this.pathOf(key));
      const target = join(dir, name);
      tmp = join(dir, `.${name}.${randomUUID()}.tmp`);
      const counter = new ByteCounter(options.maxBytes);
      await pipeline(source, counter, createWriteStream(tmp, { flags: 'wx', mode: 0o644, flush: true }), {
        signal: options.signal,
      });
      metaTmp = join(dir, `.${name}.${randomUUID()}.meta.tmp`);
      const sidecar: Sidecar = { contentType: options.contentType };
      await writeFile(metaTmp, JSON.stringify(sidecar), { flag: 'wx', mode: 0o644, flush: true });
      await rename(metaTmp, this.sidecarPath(target));
      metaTmp = null;
      await rename(tmp, target);
      tmp = null;
      return { key, size: counter.bytes };
    } catch (error) {
      source.destroy();
      await Promise.all([tmp, metaTmp].map((file) => file && rm(file, { force: true }).catch(() => {})));
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<GetResult | null> {
    const opened = await this.openExisting(key);
    if (!opened) return null;
    const { handle, file, size } = opened;
    try {
      const resolved = range ? resolveRange(range, size) : undefined;
      const contentType = await this.contentTypeOf(file, key);
      const body = handle.createReadStream({
        start: resolved?.start ?? 0,
        // end is inclusive and may not be -1: for an empty file "0..0" reads nothing
        end: resolved ? resolved.end : Math.max(0, size - 1),
        autoClose: true,
      });
      return { body, size, contentType, ...(resolved ? { range: resolved } : {}) };
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
  }

  async stat(key: string): Promise<ObjectStat | null> {
    const opened = await this.openExisting(key);
    if (!opened) return null;
    try {
      return { size: opened.size, contentType: await this.contentTypeOf(opened.file, key) };
    } finally {
      await opened.handle.close();
    }
  }

  async copy(fromKey: string, toKey: string): Promise<PutResult | null> {
    assertValidKey(toKey);
    const opened = await this.openExisting(fromKey);
    if (!opened) return null;
    try {
      const contentType = await this.contentTypeOf(opened.file, fromKey);
      // Through put: the copy appears whole or not at all, like any other object.
      return await this.put(toKey, opened.handle.createReadStream({ autoClose: false }), { contentType });
    } finally {
      await opened.handle.close();
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    const dir = await this.existingDir(key);
    if (!dir) return;
    const target = join(dir, basename(this.pathOf(key)));
    // unlink, not follow: a symlink at the key itself is removed, never its target
    await rm(target, { force: true });
    await rm(this.sidecarPath(target), { force: true });
  }

  async deleteMany(keys: string[]): Promise<void> {
    keys.forEach((key) => assertValidKey(key));
    const unique = [...new Set(keys)];
    for (let i = 0; i < unique.length; i += 16) {
      await Promise.all(unique.slice(i, i + 16).map((key) => this.delete(key)));
    }
  }

  async list(prefix = ''): Promise<string[]> {
    assertValidPrefix(prefix);
    const root = await this.rootReal();
    const slash = prefix.lastIndexOf('/');
    const start = slash >= 0 ? prefix.slice(0, slash) : '';
    const keys: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (isMissing(error)) return;
        throw error;
      }
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue; // temp files, sidecars
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile()) {
          const key = relative(root, full).split(sep).join('/');
          if (key.startsWith(prefix) && isValidKey(key)) keys.push(key);
        }
        // symlinks and other entries are never listed or followed
      }
    };
    let from = root;
    if (start) {
      // the folder the prefix names must itself resolve inside the root (no symlink out)
      try {
        from = await realpath(join(root, ...start.split('/')));
      } catch (error) {
        if (isMissing(error)) return [];
        throw error;
      }
      if (!(await this.inside(from))) return [];
    }
    await walk(from);
    return keys.sort();
  }

  publicUrl(key: string): string {
    return publicUploadUrl(key);
  }

  // --- paths -------------------------------------------------------------------------

  /** `<root>/<key>`, lexically inside the root (the key is validated). */
  private pathOf(key: string): string {
    assertValidKey(key);
    const file = resolve(this.root, ...key.split('/'));
    if (!file.startsWith(this.root + sep)) throw new InvalidKeyError(key, 'outside the storage root');
    return file;
  }

  private sidecarPath(file: string): string {
    return join(dirname(file), `.${basename(file)}.meta.json`);
  }

  private rootReal(): Promise<string> {
    this.realRoot ??= mkdir(this.root, { recursive: true })
      .then(() => realpath(this.root))
      .catch((error) => {
        this.realRoot = null;
        throw error;
      });
    return this.realRoot;
  }

  private async inside(real: string): Promise<boolean> {
    const root = await this.rootReal();
    return real === root || real.startsWith(root + sep);
  }

  /** The real folder of a key, created when missing; refuses one that resolves outside the root. */
  private async writableDir(key: string): Promise<string> {
    await this.rootReal();
    const dir = dirname(this.pathOf(key));
    await mkdir(dir, { recursive: true });
    const real = await realpath(dir);
    if (!(await this.inside(real))) throw new InvalidKeyError(key, 'resolves outside the storage root');
    return real;
  }

  /** The real folder of a key when it exists inside the root, else null. */
  private async existingDir(key: string): Promise<string | null> {
    try {
      const real = await realpath(dirname(this.pathOf(key)));
      return (await this.inside(real)) ? real : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** Opens the key's regular file when it exists and resolves inside the root. */
  private async openExisting(
    key: string,
  ): Promise<{ handle: FileHandle; file: string; size: number } | null> {
    const path = this.pathOf(key);
    let file: string;
    try {
      file = await realpath(path);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    if (!(await this.inside(file))) return null;
    let handle: FileHandle;
    try {
      handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'ELOOP') return null;
      throw error;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await handle.close();
        return null;
      }
      return { handle, file, size: stats.size };
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
  }

  private async contentTypeOf(file: string, key: string): Promise<string> {
    try {
      const sidecar = JSON.parse(await readFile(this.sidecarPath(file), 'utf8')) as Partial<Sidecar>;
      if (typeof sidecar.contentType === 'string') {
        assertValidContentType(sidecar.contentType);
        return sidecar.contentType;
      }
    } catch {
      // no sidecar (or a damaged one): fall back to the extension
    }
    return contentTypeForKey(key);
  }
}
