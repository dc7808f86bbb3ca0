/** Replaces the password of any URL in `text` (`redis://user:secret@host`) and every listed secret with `***`. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let redacted = text.replace(/(\w+:\/\/)([^:@/\s]*):([^@/\s]*)@/g, '$1$2:***@');
  for (const secret of secrets) {
    if (secret.length >= 3) redacted = redacted.split(secret).join('***');
  }
  return redacted;
}
