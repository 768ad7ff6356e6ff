/** An OpenAI-compatible chat model (OpenAI, or a local server such as Ollama or vLLM). */
export type AiConfig = {
  apiKey: string;
  /** Undefined for OpenAI itself; e.g. http://127.0.0.1:11434/v1 for Ollama. */
  baseURL: string | undefined;
  model: string;
  /** A slower answer is dropped and the heuristics answer alone. */
  timeoutMs: number;
};

/** A model when OPENAI_API_KEY is set; otherwise null, and the heuristics answer alone. */
export function aiConfig(env: Record<string, string | undefined>): AiConfig | null {
  const apiKey = env.OPENAI_API_KEY?.trim();
  if (!apiKey) return null;
  return {
    apiKey,
    baseURL: env.OPENAI_BASE_URL?.trim() || undefined,
    model: env.OPENAI_MODEL?.trim() || 'gpt-4o-mini',
    timeoutMs: Math.max(500, Number(env.OPENAI_TIMEOUT_MS) || 15_000),
  };
}
