import { RE2JS } from 're2js';

/**
 * Keyword matching of AutoMod KEYWORD rules, as publicly described: case-insensitive; `*` at
 * either end of a keyword is a wildcard (`cat` a whole word, `cat*` a word starting with it,
 * `*cat` ending with it, `*cat*` anywhere); `regex_patterns` are regular expressions; anything
 * matched that an `allow_list` entry also matches (same wildcard rules) does not count.
 */
export interface KeywordTrigger {
  keyword_filter: string[];
  regex_patterns: string[];
  allow_list: string[];
}

export interface KeywordMatch {
  keyword: string;
  content: string;
}

const WORD = '[\\p{L}\\p{N}_]';

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A keyword with its wildcards as a regular expression over the whole message. */
export function keywordRegex(keyword: string): RegExp {
  const start = keyword.startsWith('*');
  const end = keyword.endsWith('*') && keyword.length > 1;
  const core = escape(keyword.slice(start ? 1 : 0, end ? -1 : undefined));
  // Each side without a wildcard is a word boundary; with one, the word may go on. A leading
  // wildcard's word part may only begin where a word begins: the same matches as `W*` (a longer
  // one would start earlier), but `W*` was retried at every position of a long word, quadratic
  // in it (1,000 `*x*` keywords took 3 s on a 2,000-letter word; this one is linear).
  const left = start ? `(?:(?<!${WORD})${WORD}+)?` : `(?<!${WORD})`;
  const right = end ? `${WORD}*` : `(?!${WORD})`;
  return new RegExp(`${left}${core}${right}`, 'giu');
}

/**
 * `regex_patterns` run on RE2 (re2js, a pure-JS port: linear time in the message, no native
 * build), not JavaScript's backtracking engine: a pattern such as `(a|aa)+$` would otherwise take
 * seconds on a 27-character message and block the event loop for every guild. RE2's syntax is
 * close to the Rust regex crate the public platform uses: no backreferences, no lookaround.
 */
const RE2_FLAGS = RE2JS.CASE_INSENSITIVE;
/**
 * RE2's cost is linear in message length times program size, so a huge program (`(.*){1000}x`)
 * still costs ~0.2 s per message; real moderation patterns stay far below this.
 */
export const MAX_REGEX_PROGRAM = 600;
/** Matches an allow_list entry excuses before a pattern stops being checked (bounds the work). */
const MAX_ALLOWED_SKIPS = 20;

/** Why a pattern is refused at rule creation, or undefined when RE2 takes it. */
export function unsafeRegex(pattern: string): string | undefined {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, RE2_FLAGS);
  } catch (e) {
    // Backreferences and lookaround land here: RE2 cannot run them in linear time.
    return `Invalid regular expression: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (re.programSize() > MAX_REGEX_PROGRAM) return 'Regular expression too complex';
  return undefined;
}

interface Matcher {
  keyword: string;
  first(content: string, isAllowed: (s: string) => boolean): string | undefined;
}

function jsMatcher(keyword: string, re: RegExp): Matcher {
  return {
    keyword,
    first(content, isAllowed) {
      for (const m of content.matchAll(re)) {
        if (m[0] === '' || isAllowed(m[0])) continue;
        return m[0];
      }
      return undefined;
    },
  };
}

function re2Matcher(pattern: string): Matcher | undefined {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, RE2_FLAGS);
  } catch {
    // A row stored before patterns were checked against RE2: it never matches rather than failing every message.
    return undefined;
  }
  return {
    keyword: pattern,
    first(content, isAllowed) {
      if (!re.test(content)) return undefined; // the DFA: cheap, and the common case
      const m = re.matcher(content);
      let skips = 0;
      while (m.find()) {
        const s = m.group() ?? '';
        if (s !== '' && !isAllowed(s)) return s;
        if (s !== '' && ++skips >= MAX_ALLOWED_SKIPS) return undefined;
      }
      return undefined;
    },
  };
}

/**
 * Compiled triggers by content: the rule cache reloads rows every 5 s, and V8 compiles a
 * `\p{L}` expression on its first run (~0.5 ms each: 1,000 keywords cost ~0.5 s), so an
 * unchanged trigger is not compiled again. Bounded; the oldest entry goes first.
 */
const compiled = new Map<string, (content: string) => KeywordMatch | undefined>();
const MAX_COMPILED = 256;

export function compileKeywordsCached(t: KeywordTrigger): (content: string) => KeywordMatch | undefined {
  const key = JSON.stringify([t.keyword_filter, t.regex_patterns, t.allow_list]);
  let m = compiled.get(key);
  if (!m) {
    m = compileKeywords(t);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, m);
  }
  return m;
}

/** The trigger's expressions built once (rules are cached; every message runs them). */
export function compileKeywords(t: KeywordTrigger): (content: string) => KeywordMatch | undefined {
  const allowed = t.allow_list.map(keywordRegex);
  const tries: Matcher[] = [
    ...t.keyword_filter.map((k) => jsMatcher(k, keywordRegex(k))),
    ...t.regex_patterns.map(re2Matcher).filter((m): m is Matcher => m !== undefined),
  ];
  return (content) => firstMatch(content, tries, allowed);
}

export function matchKeywords(content: string, t: KeywordTrigger): KeywordMatch | undefined {
  return compileKeywords(t)(content);
}

function firstMatch(content: string, tries: Matcher[], allowed: RegExp[]): KeywordMatch | undefined {
  if (content === '') return undefined;
  const isAllowed = (s: string) => allowed.some((r) => {
    r.lastIndex = 0;
    const m = r.exec(s);
    return m !== null && m[0].length === s.length;
  });
  for (const t of tries) {
    const hit = t.first(content, isAllowed);
    if (hit !== undefined) return { keyword: t.keyword, content: hit };
  }
  return undefined;
}
