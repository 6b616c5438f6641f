import yauzl from 'yauzl';

/** Every file of a zip, by name (the export's tests read whole archives). */
export function unzip(zip: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, file) => {
      if (error || !file) return reject(error);
      const files = new Map<string, Buffer>();
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, async (failure, stream) => {
          if (failure || !stream) return reject(failure);
          const chunks: Buffer[] = [];
          for await (const chunk of stream) chunks.push(chunk as Buffer);
          files.set(entry.fileName, Buffer.concat(chunks));
          file.readEntry();
        });
      });
      file.on('end', () => resolve(files));
      file.on('error', reject);
      file.readEntry();
    });
  });
}
