// Secrets never reach output or errors: the token, and the forms git and HTTP carry it in.

/** Every form a token travels in: as is, URL-encoded, and base64 in a Basic Authorization header. */
function secretForms(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret), Buffer.from(`x-access-token:${secret}`).toString('base64'), Buffer.from(secret).toString('base64')];
  return [...new Set(forms)].filter((form) => form.length >= 4);
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret) continue;
    for (const form of secretForms(secret)) out = out.split(form).join('***');
  }
  return out;
}
