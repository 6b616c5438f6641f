import { CROP_ZOOM, DRAG } from '@blog/contracts/admin';
import { CROP_FRAME } from '@blog/contracts/image-settings';
import { useLayoutEffect, useRef, useState, type HTMLAttributes, type ImgHTMLAttributes } from 'react';
import Cropper from 'react-easy-crop';
import 'react-easy-crop/react-easy-crop.css';
import type { CropSettings } from '../lib/draft';
import { Modal } from '../ui/Modal';

interface CropDialogProps {
  src: string;
  initial: CropSettings | null;
  onApply(crop: CropSettings): void;
  onClose(): void;
}

/**
 * 'Adjust Main Image Crop' (docs/product.md#screens, #limits-and-timings): the 400x128 frame the public card shows. At
 * zoom 1 the image covers the frame; drag pans (clamped to the image), wheel and pinch zoom
 * from 0.5x to 3x. The frame shrinks on narrow screens; positions are sent in frame pixels,
 * which is what the media worker renders the preview from.
 */
export function CropDialog({ src, initial, onApply, onClose }: CropDialogProps) {
  const frameRef = useRef<HTMLDivElement>(null);
  const [ratio, setRatio] = useState(1);
  const [crop, setCrop] = useState({ x: 0, y: 0 });
  const [zoom, setZoom] = useState(initial?.scale ?? 1);

  useLayoutEffect(() => {
    const width = frameRef.current?.clientWidth || CROP_FRAME.width;
    const next = width / CROP_FRAME.width;
    setRatio(next);
    if (initial) setCrop({ x: initial.x * next, y: initial.y * next });
    // Measured once when the dialog opens.
  }, []);

  const size = { width: CROP_FRAME.width * ratio, height: CROP_FRAME.height * ratio };
  const apply = () => onApply({ x: round(crop.x / ratio), y: round(crop.y / ratio), scale: round(zoom) });
  return (
    <Modal title="Adjust Main Image Crop" onClose={onClose} className="admin-crop-dialog">
      <p id="crop-help" className="admin-hint">
        Drag the picture (or use the arrow keys) to choose what the card shows; zoom with the wheel, a pinch
        or the slider.
      </p>
      <div
        ref={frameRef}
        className="admin-crop-frame"
        style={{ aspectRatio: `${CROP_FRAME.width} / ${CROP_FRAME.height}` }}
      >
        <Cropper
          image={src}
          crop={crop}
          zoom={zoom}
          minZoom={CROP_ZOOM.min}
          maxZoom={CROP_ZOOM.max}
          aspect={CROP_FRAME.width / CROP_FRAME.height}
          cropSize={size}
          objectFit="cover"
          // The stylesheet comes with the admin chunk: no inline <style> for the CSP to refuse.
          disableAutomaticStylesInjection
          keyboardStep={DRAG.keyboardStep}
          onCropChange={setCrop}
          onZoomChange={setZoom}
          mediaProps={{ alt: 'Main image in the crop frame' } as ImgHTMLAttributes<HTMLElement>}
          cropperProps={
            {
              // The focusable frame moves the picture with the arrow keys: a named group.
              role: 'group',
              'aria-label': 'Crop frame',
              'aria-describedby': 'crop-help',
            } as HTMLAttributes<HTMLDivElement>
          }
        />
      </div>
      <div className="field admin-slider">
        <label htmlFor="crop-zoom">
          Zoom: <output htmlFor="crop-zoom">{zoom.toFixed(2)}x</output>
        </label>
        <input
          id="crop-zoom"
          type="range"
          min={CROP_ZOOM.min}
          max={CROP_ZOOM.max}
          step={0.05}
          value={zoom}
          onChange={(e) => setZoom(Number(e.target.value))}
        />
      </div>
      <div className="admin-actions">
        <button
          type="button"
          className="button button-secondary"
          onClick={() => {
            setCrop({ x: 0, y: 0 });
            setZoom(1);
          }}
        >
          Reset to Center
        </button>
        <button type="button" className="button button-secondary" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="button" onClick={apply}>
          Apply Crop
        </button>
      </div>
    </Modal>
  );
}

const round = (n: number) => Math.round(n * 100) / 100;
