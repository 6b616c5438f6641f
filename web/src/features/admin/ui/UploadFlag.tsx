import { createContext, useContext, useEffect } from 'react';

/** The dashboard's "a post is uploading" flag (docs/product.md#how-the-screens-behave), set by the form that uploads. */
export const UploadFlagContext = createContext<(uploading: boolean) => void>(() => undefined);

export function useReportUploading(uploading: boolean) {
  const report = useContext(UploadFlagContext);
  useEffect(() => {
    report(uploading);
    return () => report(false);
  }, [report, uploading]);
}
