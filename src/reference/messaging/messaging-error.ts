/** A refused area A request: its status and the text of its `{"error": …}` body (spec "Error (area A)"). */
export class MessagingError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
