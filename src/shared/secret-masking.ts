/**
 * Masks values that look like secrets in text shown to people (approval cards): values after a secret-bearing name
 * (`token=…`, `"password": "…"`, `Authorization: Bearer …`), and well-known credential shapes (API keys, chat tokens,
 * JWTs, private key blocks). A card must let its owner judge a call without printing the credentials it carries
 * into a thread others may read. The log redaction (`log-redaction.ts`) works by key on objects; this works on text.
 */
export const MASK = '••••';

/** Names whose value is a secret, as they appear in commands, env assignments, JSON and headers. */
const SECRET_NAME = String.raw`[A-Za-z0-9_.-]*(?:token|secret|passw(?:or)?d|passwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|authorization)[A-Za-z0-9_.-]*`;

/** `name=value`, `name: value`, `"name": "value"` (the value up to a space, quote or `&`; a header's scheme is kept). */
const NAMED_VALUE = new RegExp(
  String.raw`(["']?${SECRET_NAME}["']?\s*[=:]\s*["']?)(?!(?:Bearer|Basic|Bot|Token)\b)([^\s"'&,;}]{4,})`,
  'gi',
);
/** `--name value`, `--name=value`. */
const FLAG_VALUE = new RegExp(String.raw`(--${SECRET_NAME}(?:\s+|=)["']?)([^\s"'&,;}]{4,})`, 'gi');
/** `Bearer …`, `Basic …`, `Bot …` credentials in headers. */
const SCHEME = /\b(Bearer|Basic|Bot|Token)(\s+)([A-Za-z0-9._~+/=-]{8,})/g;
/** Credential shapes recognisable without a name. */
const SHAPES: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /\b(?:sk|pk|rk)-(?:[A-Za-z0-9]+-)?[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprse]-[A-Za-z0-9-]{10,}/g,
  /\bxapp-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}/g,
  /\b(?:https?|postgres(?:ql)?|mysql|redis|amqp|mongodb(?:\+srv)?):\/\/[^\s:/@]+:([^\s@/]+)@/g,
];

/** The text with every secret-looking value replaced by `••••` (names and structure kept, so the call stays readable). */
export function maskSecrets(text: string): string {
  let masked = text;
  for (const shape of SHAPES) {
    masked = masked.replace(shape, (match: string, password?: string) =>
      typeof password === 'string' && password !== '' ? match.replace(`:${password}@`, `:${MASK}@`) : MASK,
    );
  }
  masked = masked.replace(SCHEME, (_match, scheme: string, space: string) => `${scheme}${space}${MASK}`);
  const keepMasked = (match: string, prefix: string, value: string): string =>
    value === MASK ? match : `${prefix}${MASK}`;
  return masked.replace(NAMED_VALUE, keepMasked).replace(FLAG_VALUE, keepMasked);
}
