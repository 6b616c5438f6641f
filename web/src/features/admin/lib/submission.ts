/**
 * One submission of the post form and its Idempotency-Key. Sending the same form again (Retry,
 * the timeout's Retry, Submit after a reload) reuses the key, so the server does the write
 * once; a changed form is a new submission with a new key.
 */
export interface Submission {
  key: string;
  /** What was sent: every field, and each file by name, size and date (its bytes stay unread). */
  signature: string;
  timestamp: number;
}

/** The form's content as a string: equal strings, the same submission. */
export function formSignature(body: FormData): string {
  const entries: string[][] = [];
  body.forEach((value, name) => {
    entries.push(
      typeof value === 'string'
        ? [name, value]
        : [name, value.name, String(value.size), String(value.lastModified)],
    );
  });
  return JSON.stringify(entries);
}

/** 128 random bits; getRandomValues, unlike randomUUID, works on a plain-http address too. */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The submission `body` belongs to: the pending one when the form is unchanged, else a new one. */
export function submissionFor(body: FormData, pending: Submission | null, now: number): Submission {
  const signature = formSignature(body);
  if (pending && pending.signature === signature) return pending;
  return { key: newIdempotencyKey(), signature, timestamp: now };
}
