// How a turn's events become the next LLM request (docs/llm-messages.md): tool results first, in
// call order, then the media of those results as user content.

const dataUrl = (p) => `data:${p.mime_type || 'application/octet-stream'};base64,${p.data || ''}`;
const OPENAI_AUDIO = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3' };

export function openaiChat(results, media) {
  const out = results.map((r) => ({ role: 'tool', tool_call_id: r.tool_call_id, content: r.content }));
  for (const m of media) {
    const parts = [];
    for (const p of m.content || []) {
      if (p.type === 'text') parts.push({ type: 'text', text: p.text ?? '' });
      else if (p.type === 'image' && p.data) parts.push({ type: 'image_url', image_url: { url: dataUrl(p) } });
      else if (p.type === 'audio' && p.data && OPENAI_AUDIO[p.mime_type]) {
        parts.push({ type: 'input_audio', input_audio: { data: p.data, format: OPENAI_AUDIO[p.mime_type] } });
      }
    }
    if (parts.length) out.push({ role: 'user', content: parts });
  }
  return out;
}

export function openaiResponses(results, media) {
  const out = results.map((r) => ({ type: 'function_call_output', call_id: r.tool_call_id, output: r.content }));
  for (const m of media) {
    const parts = [];
    for (const p of m.content || []) {
      if (p.type === 'text') parts.push({ type: 'input_text', text: p.text ?? '' });
      else if (p.type === 'image' && p.data) parts.push({ type: 'input_image', image_url: dataUrl(p) });
    }
    if (parts.length) out.push({ type: 'message', role: 'user', content: parts });
  }
  return out;
}

export function anthropic(results, media) {
  const blocks = results.map((r) => {
    const b = { type: 'tool_result', tool_use_id: r.tool_call_id, content: r.content };
    if (r.is_error) b.is_error = true;
    return b;
  });
  for (const m of media) {
    for (const p of m.content || []) {
      if (p.type === 'text') blocks.push({ type: 'text', text: p.text ?? '' });
      else if (p.type === 'image' && p.data) {
        blocks.push({ type: 'image', source: { type: 'base64', media_type: p.mime_type || 'image/png', data: p.data } });
      }
    }
  }
  return blocks.length ? [{ role: 'user', content: blocks }] : [];
}

export function gemini(results, media) {
  const out = [];
  if (results.length) {
    out.push({
      role: 'user',
      parts: results.map((r) => ({
        functionResponse: { id: r.tool_call_id, name: r.name, response: r.is_error ? { error: r.content } : { content: r.content } },
      })),
    });
  }
  const parts = [];
  for (const m of media) {
    for (const p of m.content || []) {
      if (p.type === 'text') parts.push({ text: p.text ?? '' });
      else if ((p.type === 'image' || p.type === 'audio') && p.data) {
        parts.push({ inlineData: { mimeType: p.mime_type || 'application/octet-stream', data: p.data } });
      }
    }
  }
  if (parts.length) out.push({ role: 'user', parts });
  return out;
}
