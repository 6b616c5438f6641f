import { useState } from 'react';

/**
 * A small picture that turns into the placeholder when it cannot load (an external thumbnail
 * the network or a policy refuses), so the form never shows a broken image.
 */
export function Thumbnail({
  src,
  placeholder,
  alt = '',
}: {
  src: string | null;
  placeholder: string;
  alt?: string;
}) {
  const [failed, setFailed] = useState<string | null>(null);
  if (!src || failed === src)
    return (
      <span
        className="admin-thumb-placeholder"
        role={alt ? 'img' : undefined}
        aria-label={alt || undefined}
        aria-hidden={alt ? undefined : true}
      >
        {placeholder}
      </span>
    );
  return <img src={src} alt={alt} draggable={false} onError={() => setFailed(src)} />;
}
