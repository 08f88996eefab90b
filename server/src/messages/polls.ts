import type { FieldErrors } from '../applications/formErrors.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A poll as stored with its message (`channel_messages.poll`, `interaction_messages.poll`); results are computed when read. */
export interface StoredPoll {
  question: { text: string };
  answers: { answer_id: number; poll_media: { text: string; emoji?: { id?: string; name?: string } } }[];
  expiry: string;
  allow_multiselect: boolean;
  layout_type: number;
}

/** Public limits of the poll create request (spec, Poll Create Request Object). */
export const POLL_LIMITS = { question: 300, answers: 10, answerText: 55, minHours: 1, maxHours: 768, defaultHours: 24 } as const;

/** `poll_media.emoji` of an answer: a custom emoji `{id}` or a Unicode one `{name}`; anything else is an error at `path`. */
function emojiOf(raw: unknown, errs: FieldErrors, path: (string | number)[]): { id?: string; name?: string } | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (isObj(raw) && typeof raw.id === 'string' && /^\d{1,20}$/.test(raw.id)) return { id: raw.id };
  if (isObj(raw) && typeof raw.name === 'string' && raw.name.length > 0 && raw.name.length <= 32) return { name: raw.name };
  errs.add(path, 'POLL_MEDIA_INVALID_EMOJI', 'An answer emoji is {id} of a custom emoji or {name} of a Unicode emoji.');
  return undefined;
}

/**
 * Checks the public poll create request (question 1-300, 1-10 answers of 1-55 characters,
 * `duration` 1-768 hours, default 24, `layout_type` 1), adding 50035 errors at `prefix.poll.…`.
 * Returns the poll to store, or null when absent or invalid.
 */
export function checkPoll(raw: unknown, errs: FieldErrors, prefix: (string | number)[]): StoredPoll | null {
  if (raw === undefined || raw === null) return null;
  const before = errs.count;
  const p = [...prefix, 'poll'];
  if (!isObj(raw)) {
    errs.add(p, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType.');
    return null;
  }
  const q = isObj(raw.question) ? raw.question.text : undefined;
  if (typeof q !== 'string' || q.length < 1 || q.length > POLL_LIMITS.question) errs.add([...p, 'question', 'text'], 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${POLL_LIMITS.question} in length.`);
  const answers = raw.answers;
  if (!Array.isArray(answers) || answers.length < 1 || answers.length > POLL_LIMITS.answers) errs.add([...p, 'answers'], 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${POLL_LIMITS.answers} in length.`);
  const out: StoredPoll['answers'] = [];
  (Array.isArray(answers) ? answers : []).forEach((a, i) => {
    const media = isObj(a) && isObj(a.poll_media) ? a.poll_media : undefined;
    const text = media?.text;
    if (typeof text !== 'string' || text.length < 1 || text.length > POLL_LIMITS.answerText) errs.add([...p, 'answers', i, 'poll_media', 'text'], 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${POLL_LIMITS.answerText} in length.`);
    const emoji = emojiOf(media?.emoji, errs, [...p, 'answers', i, 'poll_media', 'emoji']);
    // Answer IDs are 1, 2, … in order (as publicly); only the known fields are kept.
    out.push({ answer_id: i + 1, poll_media: { text: String(text ?? ''), ...(emoji ? { emoji } : {}) } });
  });
  const duration = raw.duration ?? POLL_LIMITS.defaultHours;
  if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < POLL_LIMITS.minHours || duration > POLL_LIMITS.maxHours) errs.add([...p, 'duration'], 'NUMBER_TYPE_MAX', `Must be between ${POLL_LIMITS.minHours} and ${POLL_LIMITS.maxHours} (hours).`);
  if (raw.allow_multiselect !== undefined && typeof raw.allow_multiselect !== 'boolean') errs.add([...p, 'allow_multiselect'], 'BASE_TYPE_BOOLEAN', 'Must be either true or false.');
  if (raw.layout_type !== undefined && raw.layout_type !== 1) errs.add([...p, 'layout_type'], 'BASE_TYPE_CHOICES', 'Value must be one of (1).');
  if (errs.count > before) return null;
  return {
    question: { text: q as string },
    answers: out,
    expiry: new Date(Date.now() + (duration as number) * 3600_000).toISOString(),
    allow_multiselect: raw.allow_multiselect === true,
    layout_type: 1,
  };
}

/**
 * The public Poll object of a stored poll: its fields and `results` (`is_finalized` once the
 * expiry has passed; `answer_counts` empty: votes are not kept yet). Accepts the older stored
 * form that carried a `results` of its own.
 */
export function pollWire(stored: string | StoredPoll | Obj, now = Date.now()): Obj {
  const p = (typeof stored === 'string' ? JSON.parse(stored) : stored) as StoredPoll;
  return {
    question: p.question,
    answers: p.answers,
    expiry: p.expiry,
    allow_multiselect: p.allow_multiselect,
    layout_type: p.layout_type ?? 1,
    results: { is_finalized: Date.parse(p.expiry) <= now, answer_counts: [] },
  };
}
