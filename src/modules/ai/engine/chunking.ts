// Splits knowledge documents into small, self-contained chunks for retrieval.
//
// Every format is first turned into "blocks" (a paragraph, a list item, a table
// row) grouped into sections under a heading path. Sections are then packed
// into chunks of about TARGET_CHUNK_CHARS on sentence boundaries, so an answer
// sentence is never split across two chunks. Blocks stay on separate lines in
// the chunk text: list items and table rows rarely end with a full stop, and
// the newline is what keeps them separate sentences for answer extraction.
import type { ContentType, KnowledgeChunk, KnowledgeDocument } from './types.ts';

export const TARGET_CHUNK_CHARS = 600;
/** A single sentence longer than this is cut on word boundaries (it is probably not prose). */
const MAX_SENTENCE_CHARS = 1000;

interface Section {
  headingPath: string[];
  blocks: string[];
}

export function chunkDocument(doc: KnowledgeDocument): KnowledgeChunk[] {
  const sections = parseSections(doc.content, doc.contentType);
  const chunks: KnowledgeChunk[] = [];
  for (const section of sections) {
    const heading = section.headingPath.length > 0 ? section.headingPath.join(' > ') : null;
    for (const text of packSentences(section.blocks)) {
      chunks.push({ id: `${doc.documentId}#${chunks.length}`, documentId: doc.documentId, title: doc.title, heading, text });
    }
  }
  return chunks;
}

function parseSections(content: string, contentType: ContentType): Section[] {
  switch (contentType) {
    case 'text/markdown':
      return parseMarkdown(content);
    case 'text/html':
      return parseMarkdown(htmlToMarkdown(content));
    case 'text/plain':
      return parsePlainText(content);
  }
}

// ---------------------------------------------------------------- sentences

// Abbreviations whose trailing dot does not end a sentence (lower-cased, without the dot).
const ABBREVIATIONS = new Set([
  'dr', 'mr', 'mrs', 'ms', 'prof', 'st', 'ave', 'rd', 'blvd', 'ste', 'apt', 'no', 'vs', 'etc', 'inc', 'ltd', 'co',
  'jr', 'sr', 'e.g', 'i.e', 'a.m', 'p.m', 'approx', 'dept', 'est', 'fig', 'mt', 'ft', 'min', 'hr', 'hrs', 'jan', 'feb',
  'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'mon', 'tue', 'tues', 'wed', 'thu', 'thur',
  'thurs', 'fri', 'sat', 'sun',
]);

/**
 * Splits text into sentences. Newlines always separate sentences (they delimit
 * list items and table rows); within a line we split after . ! ? followed by
 * whitespace and an upper-case letter, digit or quote, unless the dot belongs
 * to a known abbreviation ("Dr.", "p.m.") or a single initial ("J. Smith").
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const rawLine of text.split(/\n+/)) {
    const line = rawLine.replace(/\s+/g, ' ').trim();
    if (!line) continue;
    let start = 0;
    const boundary = /[.!?]+["'”’)]*\s+(?=["'“‘(]?[A-Z0-9$])/g;
    for (let m = boundary.exec(line); m; m = boundary.exec(line)) {
      const end = m.index + m[0].length;
      if (endsWithAbbreviation(line.slice(start, m.index + 1))) continue;
      sentences.push(line.slice(start, end).trim());
      start = end;
    }
    const rest = line.slice(start).trim();
    if (rest) sentences.push(rest);
  }
  return sentences;
}

function endsWithAbbreviation(textEndingInDot: string): boolean {
  if (!textEndingInDot.endsWith('.')) return false;
  const lastWord = /([A-Za-z][A-Za-z.]*)\.$/.exec(textEndingInDot)?.[1];
  if (!lastWord) return false;
  if (lastWord.length === 1) return true; // an initial
  return ABBREVIATIONS.has(lastWord.toLowerCase());
}

/** Greedily packs sentences into chunks of about TARGET_CHUNK_CHARS. */
function packSentences(blocks: string[]): string[] {
  const chunks: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim()) chunks.push(current.trim());
    current = '';
  };
  for (const block of blocks) {
    const sentences = splitSentences(block).flatMap(cutHugeSentence);
    sentences.forEach((sentence, i) => {
      // Sentences of one block are joined by a space, blocks by a newline.
      const separator = current === '' ? '' : i === 0 ? '\n' : ' ';
      if (current !== '' && current.length + separator.length + sentence.length > TARGET_CHUNK_CHARS) {
        flush();
        current = sentence;
      } else {
        current += separator + sentence;
      }
    });
  }
  flush();
  return chunks;
}

function cutHugeSentence(sentence: string): string[] {
  if (sentence.length <= MAX_SENTENCE_CHARS) return [sentence];
  const pieces: string[] = [];
  let rest = sentence;
  while (rest.length > TARGET_CHUNK_CHARS) {
    let cut = rest.lastIndexOf(' ', TARGET_CHUNK_CHARS);
    if (cut <= 0) cut = TARGET_CHUNK_CHARS; // one enormous "word": cut anyway
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

// ---------------------------------------------------------------- markdown

function parseMarkdown(content: string): Section[] {
  const sections: Section[] = [];
  const headingStack: { level: number; text: string }[] = [];
  let section: Section = { headingPath: [], blocks: [] };
  let paragraph: string[] = [];
  let table: string[][] = [];
  let inFence = false;

  const flushParagraph = () => {
    const text = cleanInlineMarkdown(paragraph.join(' '));
    if (text) section.blocks.push(text);
    paragraph = [];
  };
  const flushTable = () => {
    section.blocks.push(...tableToBlocks(table));
    table = [];
  };
  const startSection = (level: number, text: string) => {
    flushParagraph();
    flushTable();
    if (section.blocks.length > 0) sections.push(section);
    while (headingStack.length > 0 && headingStack[headingStack.length - 1]!.level >= level) headingStack.pop();
    headingStack.push({ level, text });
    section = { headingPath: headingStack.map((h) => h.text), blocks: [] };
  };

  const lines = content.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();

    if (/^(```|~~~)/.test(trimmed)) {
      flushParagraph();
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      if (trimmed) section.blocks.push(trimmed);
      continue;
    }

    const atx = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(trimmed);
    if (atx) {
      const text = cleanInlineMarkdown(atx[2]!);
      if (text) startSection(atx[1]!.length, text);
      continue;
    }
    // Setext headings: a text line underlined with === (h1) or --- (h2).
    const next = lines[i + 1]?.trim() ?? '';
    if (trimmed && paragraph.length === 0 && !trimmed.startsWith('|') && /^(=+|-+)$/.test(next) && next.length >= 3) {
      startSection(next.startsWith('=') ? 1 : 2, cleanInlineMarkdown(trimmed));
      i++;
      continue;
    }

    if (trimmed.startsWith('|') || (table.length > 0 && trimmed.includes('|'))) {
      flushParagraph();
      table.push(splitTableRow(trimmed));
      continue;
    }
    if (table.length > 0) flushTable();

    if (!trimmed || /^(\*\s*){3,}$|^(-\s*){3,}$|^(_\s*){3,}$/.test(trimmed)) {
      flushParagraph(); // blank line or horizontal rule
      continue;
    }
    const listItem = /^(?:[-*+]|\d+[.)])\s+(.*)$/.exec(trimmed);
    if (listItem) {
      flushParagraph();
      paragraph.push(listItem[1]!);
      continue;
    }
    paragraph.push(trimmed.replace(/^>\s?/, '')); // soft-wrapped paragraph or blockquote line
  }
  flushParagraph();
  flushTable();
  if (section.blocks.length > 0) sections.push(section);
  return sections;
}

function cleanInlineMarkdown(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images -> alt text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1') // links -> link text
    .replace(/<[^>]+>/g, '') // inline html
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[\s(])[*_](\S(?:.*?\S)?)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/~~(.+?)~~/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

function splitTableRow(line: string): string[] {
  return line
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cleanInlineMarkdown(cell));
}

/**
 * A table row becomes one self-contained line: "Cleaning: Price: $120; Duration: 45 min".
 * Repeating the column headers in each row keeps the facts answerable on their own.
 */
function tableToBlocks(rows: string[][]): string[] {
  if (rows.length === 0) return [];
  const isSeparator = (row: string[]) => row.every((cell) => /^:?-{2,}:?$/.test(cell) || cell === '');
  let header: string[] | null = null;
  let body = rows;
  if (rows.length > 1 && isSeparator(rows[1]!)) {
    header = rows[0]!;
    body = rows.slice(2);
  }
  return body
    .filter((row) => !isSeparator(row) && row.some((cell) => cell !== ''))
    .map((row) => {
      const [first, ...rest] = row;
      const described = rest
        .map((cell, i) => (cell === '' ? '' : header?.[i + 1] ? `${header[i + 1]}: ${cell}` : cell))
        .filter((part) => part !== '');
      return described.length > 0 ? `${first}: ${described.join('; ')}` : first ?? '';
    })
    .filter((line) => line !== '');
}

// ---------------------------------------------------------------- html

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', ndash: '–', mdash: '—', rsquo: '’', lsquo: '‘',
  rdquo: '”', ldquo: '“', hellip: '…', copy: '©', reg: '®', trade: '™', middot: '·', bull: '•', eacute: 'é', euro: '€',
  pound: '£', cent: '¢', times: '×',
};

export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

const BLOCK_TAGS =
  'p|div|section|article|header|footer|main|aside|ul|ol|dl|dt|dd|table|blockquote|pre|address|figure|figcaption|form|fieldset|details|summary|hr';

/**
 * Converts HTML into the markdown dialect parseMarkdown understands: headings
 * become "#" lines, list items "-" lines, table rows "|" lines (a row of <th>
 * cells becomes the header). Scripts, styles and other invisible content are
 * dropped entirely, tags removed, entities decoded.
 */
export function htmlToMarkdown(html: string): string {
  let s = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, ' ')
    .replace(/<(script|style|noscript|template|head|svg|iframe|object|nav)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<(script|style|noscript|template|head|svg|iframe|object|nav)\b[^>]*\/?>/gi, ' ')
    // Source line breaks mean nothing in HTML; structure comes only from tags below.
    .replace(/\s+/g, ' ');

  s = s.replace(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi, (_m, level: string, inner: string) => {
    const text = collapse(stripTags(inner));
    return text ? `\n\n${'#'.repeat(Number(level))} ${text}\n\n` : '\n\n';
  });
  s = s.replace(/<tr\b[^>]*>([\s\S]*?)<\/tr\s*>/gi, (_m, inner: string) => {
    const cells = [...inner.matchAll(/<(td|th)\b[^>]*>([\s\S]*?)(?=<\/?(?:td|th)\b|$)/gi)].map((c) => ({
      isHeader: c[1]!.toLowerCase() === 'th',
      text: collapse(stripTags(c[2]!)).replace(/\|/g, '/'),
    }));
    if (cells.length === 0) return '\n';
    // Rows end without a newline so consecutive rows stay one table (a blank line would end it).
    const row = `\n| ${cells.map((c) => c.text).join(' | ')} |`;
    return cells.every((c) => c.isHeader) ? `${row}\n| ${cells.map(() => '---').join(' | ')} |` : row;
  });
  s = s
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<br\s*\/?>/gi, '\n\n') // a hard line break: keep the lines apart
    .replace(/<\/?(?:thead|tbody|tfoot|caption|colgroup|col)\b[^>]*>/gi, '')
    .replace(new RegExp(`</?(?:${BLOCK_TAGS})\\b[^>]*>`, 'gi'), '\n\n');
  s = stripTags(s);
  // Whitespace inside a line is insignificant in HTML; newlines we introduced are structure.
  return s
    .split('\n')
    .map((line) => collapse(line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
}

function stripTags(html: string): string {
  return decodeHtmlEntities(html.replace(/<\/?[a-zA-Z][^>]*>/g, ' '));
}

function collapse(text: string): string {
  return text.replace(/[ \t\f\v\u00a0]+/g, ' ').trim();
}

// ---------------------------------------------------------------- plain text

/**
 * Plain text has no markup, so headings are recognised by convention, standing
 * alone at the start of a paragraph: a line underlined with === (level 1) or
 * --- (level 2), a short line in capitals or a short line ending with a colon
 * (level 1), or an FAQ-style question line followed by its answer (level 2,
 * so the question stays attached to the answer).
 */
function parsePlainText(content: string): Section[] {
  const sections: Section[] = [];
  let section: Section = { headingPath: [], blocks: [] };
  let topHeading: string | null = null;
  const paragraphs = content.replace(/\r\n?/g, '\n').split(/\n\s*\n/);
  for (const paragraph of paragraphs) {
    const lines = paragraph.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    if (lines.length === 0) continue;
    let body = lines;
    const heading = plainHeading(lines);
    if (heading) {
      if (section.blocks.length > 0) sections.push(section);
      if (heading.level === 1) topHeading = heading.text;
      const path = heading.level === 1 || topHeading === null ? [heading.text] : [topHeading, heading.text];
      section = { headingPath: path, blocks: [] };
      body = lines.slice(heading.lines);
    }
    // Lines that look like list entries ("- x", "Monday: 9-5") stay separate; other lines are soft wraps.
    let current: string[] = [];
    const flush = () => {
      if (current.length > 0) section.blocks.push(current.join(' '));
      current = [];
    };
    for (const line of body) {
      const listItem = LIST_ITEM.exec(line);
      if (listItem || LABELLED_LINE.test(line)) {
        flush();
        current.push(listItem ? listItem[1]! : line);
        flush();
      } else {
        current.push(line);
      }
    }
    flush();
  }
  if (section.blocks.length > 0) sections.push(section);
  return sections;
}

/** "- x", "* x", "1. x": a list entry (its text captured). */
const LIST_ITEM = /^(?:[-*•]|\d+[.)])\s+(.*)$/;
/** "Monday: 9-5", "Oil change: $39.95": a labelled line. */
const LABELLED_LINE = /^[A-Z][\w .'/&\u2013\u2014-]{0,40}:\s+\S/;

function isListLine(line: string): boolean {
  return LIST_ITEM.test(line) || LABELLED_LINE.test(line);
}

function plainHeading(lines: string[]): { text: string; lines: number; level: 1 | 2 } | null {
  const first = lines[0]!;
  const second = lines[1];
  if (second && /^(=+|-+)$/.test(second) && second.length >= 3) {
    return { text: first, lines: 2, level: second.startsWith('=') ? 1 : 2 };
  }
  if (second && first.endsWith('?') && first.length <= 120) return { text: first, lines: 1, level: 2 };
  if (first.length > 60 || /[.!?]$/.test(first)) return null;
  const letters = first.replace(/[^A-Za-z]/g, '');
  if (letters.length >= 3 && letters === letters.toUpperCase()) return { text: titleCase(first.replace(/:$/, '')), lines: 1, level: 1 };
  if (first.endsWith(':') && first.split(/\s+/).length <= 6) return { text: first.slice(0, -1), lines: 1, level: 1 };
  // "Late arrivals and missed appointments" over a paragraph of prose: a short capitalised line with
  // no punctuation of its own is a subheading, not the first words of the paragraph.
  if (second && /^[A-Z]/.test(first) && !/[:;,]/.test(first) && first.split(/\s+/).length <= 6 && /[.!?]$/.test(lines[lines.length - 1]!)) {
    return { text: first, lines: 1, level: 2 };
  }
  // "What to bring to your appointment" over a list ("- a photo ID", "Monday: 9-5") introduces it the same way.
  if (second && /^[A-Z]/.test(first) && !/[:;,]/.test(first) && first.split(/\s+/).length <= 8 && lines.slice(1).every(isListLine)) {
    return { text: first, lines: 1, level: 2 };
  }
  return null;
}

function titleCase(text: string): string {
  return text.toLowerCase().replace(/\b([a-z])/g, (c) => c.toUpperCase());
}
