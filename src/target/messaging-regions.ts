/** Area A's regions (spec "What the service does": {base_url} is regional). */
export const messagingRegions = ['eu-central-1', 'us-east-1'] as const;
export type MessagingRegion = (typeof messagingRegions)[number];
export const defaultRegion: MessagingRegion = 'eu-central-1';
