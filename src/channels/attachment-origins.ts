/** The origins a platform's attachments may be downloaded from: its own file hosts, plus the configured API's origin (fakes, proxies). */
export function attachmentOrigins(official: readonly string[], apiUrl: string | undefined): string[] {
  const origins = [...official];
  if (apiUrl !== undefined) {
    try {
      origins.push(new URL(apiUrl).origin);
    } catch {
      // api_url is validated by the config schema; a bad one adds nothing.
    }
  }
  return origins;
}
