/** Public enums of interactions (discord-api-types/v10 names and values). */
export const InteractionType = { Ping: 1, ApplicationCommand: 2, MessageComponent: 3, Autocomplete: 4, ModalSubmit: 5 } as const;
export const CallbackType = {
  Pong: 1, ChannelMessageWithSource: 4, DeferredChannelMessageWithSource: 5, DeferredUpdateMessage: 6, UpdateMessage: 7,
  AutocompleteResult: 8, Modal: 9, PremiumRequired: 10, LaunchActivity: 12,
} as const;
export const InteractionContext = { Guild: 0, BotDm: 1, PrivateChannel: 2 } as const;
export const MessageFlag = { SuppressEmbeds: 1 << 2, Ephemeral: 1 << 6, Loading: 1 << 7, SuppressNotifications: 1 << 12, IsComponentsV2: 1 << 15 } as const;

/** Which interaction types each callback type may answer (spec: LAUNCH_ACTIVITY for commands, components and modal submits). */
export const ALLOWED_CALLBACKS: Record<number, readonly number[]> = {
  [CallbackType.Pong]: [InteractionType.Ping],
  [CallbackType.ChannelMessageWithSource]: [InteractionType.ApplicationCommand, InteractionType.MessageComponent, InteractionType.ModalSubmit],
  [CallbackType.DeferredChannelMessageWithSource]: [InteractionType.ApplicationCommand, InteractionType.MessageComponent, InteractionType.ModalSubmit],
  [CallbackType.DeferredUpdateMessage]: [InteractionType.MessageComponent, InteractionType.ModalSubmit],
  [CallbackType.UpdateMessage]: [InteractionType.MessageComponent, InteractionType.ModalSubmit],
  [CallbackType.AutocompleteResult]: [InteractionType.Autocomplete],
  [CallbackType.Modal]: [InteractionType.ApplicationCommand, InteractionType.MessageComponent],
  [CallbackType.LaunchActivity]: [InteractionType.ApplicationCommand, InteractionType.MessageComponent, InteractionType.ModalSubmit],
  // Deprecated (a premium button, style 6, replaces it), and so still answered: the user's client
  // is told (INTERACTION_PREMIUM_REQUIRED). The response carries a Deprecation header.
  [CallbackType.PremiumRequired]: [InteractionType.ApplicationCommand, InteractionType.MessageComponent, InteractionType.ModalSubmit],
};

/** Message types of interaction responses: CHAT_INPUT_COMMAND 20, CONTEXT_MENU_COMMAND 23, DEFAULT 0. */
export const ResponseMessageType = { Default: 0, ChatInputCommand: 20, ContextMenuCommand: 23 } as const;
