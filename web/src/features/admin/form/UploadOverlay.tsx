import { AdminText } from '@blog/contracts/admin';
import { useEffect, useRef } from 'react';

export type UploadPhase = { phase: 'uploading'; percent: number } | { phase: 'processing' };

/** The upload banner and overlay (docs/product.md#screens): real progress while bytes go out, then the server's work. */
export function UploadOverlay({ upload }: { upload: UploadPhase }) {
  const box = useRef<HTMLDivElement>(null);
  // Focus goes into the overlay, so keyboard users are not left behind it.
  useEffect(() => box.current?.focus(), []);
  const percent = upload.phase === 'uploading' ? upload.percent : 100;
  const label = upload.phase === 'uploading' ? AdminText.uploadingPost : AdminText.processingFiles;
  const text =
    upload.phase === 'processing'
      ? AdminText.processingFiles
      : percent === 0
        ? AdminText.starting
        : AdminText.uploadingPercent(percent);
  return (
    <div className="admin-upload-overlay" role="dialog" aria-modal="true" aria-labelledby="upload-label">
      <div className="admin-upload-box" ref={box} tabIndex={-1}>
        <h3 id="upload-label">{label}</h3>
        <p className="admin-upload-banner" role="status" aria-live="polite">
          {text}
        </p>
        <progress max={100} value={percent} aria-label={label}>
          {percent}%
        </progress>
      </div>
    </div>
  );
}
