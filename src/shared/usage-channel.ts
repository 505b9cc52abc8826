/**
 * The channel usage rows and channel budgets name (`<platform>:<channel id>`): a route whose id is `<channel>:<thread>`
 * (a Slack thread) counts for its channel; any other route (a Discord thread, a DM) is its own channel.
 */
export function channelOfRoute(channelType: string, channelId: string): string {
  const colon = channelId.indexOf(':');
  return `${channelType}:${colon > 0 ? channelId.slice(0, colon) : channelId}`;
}
