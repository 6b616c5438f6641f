/**
 * The editor's formatting commands as pure text edits: given the text and the selection, the
 * change to make and the selection after it. The toolbar, the shortcuts and the tests share
 * them; CodeMirror only applies the result.
 */
export interface TextEdit {
  from: number;
  to: number;
  insert: string;
  /** The selection after the edit, in the new text. */
  selectFrom: number;
  selectTo: number;
}

/** Bold, italic, strikethrough or inline code: wraps the selection, or unwraps it when already wrapped. */
export function toggleWrap(
  text: string,
  from: number,
  to: number,
  marker: string,
  placeholder: string,
): TextEdit {
  const selected = text.slice(from, to);
  const before = text.slice(from - marker.length, from);
  const after = text.slice(to, to + marker.length);
  if (selected && before === marker && after === marker) {
    return {
      from: from - marker.length,
      to: to + marker.length,
      insert: selected,
      selectFrom: from - marker.length,
      selectTo: to - marker.length,
    };
  }
  const inner = selected || placeholder;
  const start = from + marker.length;
  return {
    from,
    to,
    insert: `${marker}${inner}${marker}`,
    selectFrom: start,
    selectTo: start + inner.length,
  };
}

const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
const lineEnd = (text: string, at: number) => {
  const end = text.indexOf('\n', at);
  return end === -1 ? text.length : end;
};

export type LineStyle = 'heading' | 'quote' | 'bullet' | 'numbered';
const PREFIX: Record<LineStyle, RegExp> = {
  heading: /^#{1,6} /,
  quote: /^> ?/,
  bullet: /^[-*+] /,
  numbered: /^\d+[.)] /,
};

/** Heading, quote or list on every selected line; taken off again when every line has it. */
export function toggleLines(text: string, from: number, to: number, style: LineStyle): TextEdit {
  const start = lineStart(text, from);
  const end = lineEnd(text, to);
  const lines = text.slice(start, end).split('\n');
  const has = lines.every((line) => PREFIX[style].test(line));
  const changed = lines.map((line, i) => {
    const bare = line.replace(PREFIX[style], '');
    if (has) return bare;
    const prefix =
      style === 'heading' ? '## ' : style === 'quote' ? '> ' : style === 'bullet' ? '- ' : `${i + 1}. `;
    return `${prefix}${bare}`;
  });
  const insert = changed.join('\n');
  // A cursor stays where it was in its line, moved by the prefix; a selection covers the lines.
  if (from === to) {
    const cursor = Math.max(start, from + changed[0]!.length - lines[0]!.length);
    return { from: start, to: end, insert, selectFrom: cursor, selectTo: cursor };
  }
  return { from: start, to: end, insert, selectFrom: start, selectTo: start + insert.length };
}

export const isUrl = (text: string) => /^(https?:\/\/|mailto:)[^\s<>]+$/i.test(text.trim());

/** A link: the selection becomes its text and the URL is selected to type (or the pasted URL is used). */
export function makeLink(text: string, from: number, to: number, url?: string): TextEdit {
  const selected = text.slice(from, to);
  const label = selected || 'link text';
  const target = url?.trim() || 'https://';
  const insert = `[${label}](${target})`;
  if (!selected) return { from, to, insert, selectFrom: from + 1, selectTo: from + 1 + label.length };
  const urlAt = from + label.length + 3;
  return {
    from,
    to,
    insert,
    selectFrom: url ? from + insert.length : urlAt,
    selectTo: from + insert.length - (url ? 0 : 1),
  };
}

/** Inline code for part of a line; a fenced block when the selection spans lines. */
export function toggleCode(text: string, from: number, to: number): TextEdit {
  const selected = text.slice(from, to);
  if (!selected.includes('\n')) return toggleWrap(text, from, to, '`', 'code');
  return insertBlock(text, from, to, `\`\`\`\n${selected}\n\`\`\``);
}

/** A block of its own (a rule, a picture): blank lines around it, the cursor after it. */
export function insertBlock(text: string, from: number, to: number, block: string): TextEdit {
  const before = text.slice(0, from);
  const after = text.slice(to);
  const lead = before === '' || before.endsWith('\n\n') ? '' : before.endsWith('\n') ? '\n' : '\n\n';
  const trail = after === '' || after.startsWith('\n\n') ? '' : after.startsWith('\n') ? '\n' : '\n\n';
  const insert = `${lead}${block}${trail}`;
  const cursor = from + lead.length + block.length;
  return { from, to, insert, selectFrom: cursor, selectTo: cursor };
}

export const horizontalRule = (text: string, from: number, to: number) => insertBlock(text, from, to, '---');
