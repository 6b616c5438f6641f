import { FileErrors, MAX_FILE_BYTES } from '@blog/contracts/media';
import { checkFiles } from './fileChecks';

const f = (name: string, type: string, size = 1000) => ({ name, type, size });

describe('file checks before upload (docs/product.md#limits-and-timings)', () => {
  test('type, size and HEIC, each with its message', () => {
    const result = checkFiles([
      f('a.jpg', 'image/jpeg'),
      f('notes.txt', 'text/plain'),
      f('huge.mp4', 'video/mp4', MAX_FILE_BYTES + 1),
      f('edge.mp4', 'video/mp4', MAX_FILE_BYTES),
    ]);
    expect(result.accepted.map((x) => x.name)).toEqual(['a.jpg', 'edge.mp4']);
    expect(result.errors).toEqual([FileErrors.unsupported('notes.txt'), FileErrors.tooLarge('huge.mp4')]);
    expect(result.heicMessage).toBeNull();
  });

  test('HEIC by type or extension: singular, plural, and the suffix when others passed', () => {
    expect(checkFiles([f('IMG_1.HEIC', '')]).heicMessage).toBe(FileErrors.heic('IMG_1.HEIC'));
    expect(checkFiles([f('a.jpg', 'image/heif'), f('b.heic', 'image/heic')]).heicMessage).toBe(
      FileErrors.heicPlural(['a.jpg', 'b.heic']),
    );
    expect(checkFiles([f('b.heic', 'image/heic'), f('ok.png', 'image/png')]).heicMessage).toBe(
      FileErrors.heic('b.heic') + ' Other files were processed successfully.',
    );
  });
});
