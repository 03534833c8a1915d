// Uses the caller's context: who is asking, from which group, and whether it is the bot's master.
export default {
  name: 'whoami',
  description: 'Tells the user who they are to the bot, and greets them in the chat first',
  inputSchema: { type: 'object', properties: {} },
  handler: async (args, context) => {
    const event = context.getEvent()
    await context.reply(`hello ${event?.user_id}`)
    if (!context.isMaster()) {
      return { error: true, message: 'only the master may ask this' }
    }
    return { success: true, data: { user: event?.user_id, group: event?.group_id ?? null, master: true } }
  }
}
