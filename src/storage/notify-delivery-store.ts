/** Notification deliveries (`notify_deliveries`): lets a reply to a notification find its workstream. */

export interface NotifyDelivery {
  deliveryId: string;
  wsId: string;
  channelType: string;
  /** Where the message was posted (DM channel, channel, or thread). */
  channelId: string;
  messageId: string;
  /** Platform user id of the person notified, when known. */
  recipient: string;
  created: string;
}

export interface NotifyDeliveryStore {
  record(input: Omit<NotifyDelivery, 'deliveryId' | 'created'>): Promise<NotifyDelivery>;
  /** The delivery of a message id (a reply to that exact message). */
  findByMessage(channelType: string, messageId: string): Promise<NotifyDelivery | undefined>;
  /** The newest delivery into a channel (a DM reply without a reference). */
  findLatestInChannel(channelType: string, channelId: string): Promise<NotifyDelivery | undefined>;
}
