/** Tool dispatch by a small model: {@link dev.toolbus.dispatch.ChatCompletionsDispatch}. */
package dev.toolbus.dispatch;
