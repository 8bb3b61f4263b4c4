/**
 * The `Warning` response header as kube-apiserver writes it: `299 - "<text>"` per warning,
 * duplicates once, texts that are not printable UTF-8 left out, and the whole bounded (past
 * 4096 characters every text is cut to 256 and the rest dropped), so a body with thousands of
 * unknown fields cannot grow a response header past what clients accept.
 */

const TOTAL_LIMIT = 4 * 1024;
const ITEM_LIMIT = 256;

/** Control characters and lone surrogates: what Go's NewWarningHeader refuses (then no warning). */
const UNPRINTABLE = /[\p{Cc}]|\p{Cs}/u;

function quoted(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** The header value for `warnings`, or undefined when none is left to send. */
export function warningHeader(warnings: readonly string[]): string | undefined {
  const texts = [...new Set(warnings)].filter((t) => t !== "" && !UNPRINTABLE.test(t));
  const runes = (t: string): number => [...t].length;
  let chosen = texts;
  if (texts.reduce((n, t) => n + runes(t), 0) > TOTAL_LIMIT) {
    chosen = [];
    let written = 0;
    for (const t of texts) {
      if (written >= TOTAL_LIMIT) break;
      const cut = [...t].slice(0, ITEM_LIMIT).join("");
      chosen.push(cut);
      written += runes(cut);
    }
  }
  if (chosen.length === 0) return undefined;
  const value = chosen.map((t) => `299 - ${quoted(t)}`).join(", ");
  // Header values go out as bytes: node:http writes a string's characters as latin1 and refuses
  // any above U+00FF, so the UTF-8 bytes (what Go sends) are carried one per character.
  return Buffer.from(value, "utf8").toString("latin1");
}
