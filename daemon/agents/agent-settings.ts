// Daemon settings for agents: training period, execution timeout and the execution brain.
import type { OpenAiSettings } from './brains/openai.js';
import type { ReplaySettings } from './brains/replay.js';
import { DEFAULT_EXTRACT_SECONDS } from './knowledge/limits.js';

export interface AgentSettings {
  /** How long a new agent stays in training before it becomes active. */
  trainingPeriodMs: number;
  /** How long an execution may take before it fails with execution_timeout. */
  executionTimeoutMs: number;
  /** The daemon's default brain; an agent's `brain` field overrides it. */
  brain: 'simulated' | 'openai' | 'replay';
  openai: OpenAiSettings;
  /** The replay brain's daemon-wide cassette (SVC_AGENT_BRAIN_CASSETTE) and record_missing. */
  replay: ReplaySettings;
  /** SVC_AGENT_BRAIN_RECORD: the cassette the openai brain records to from the start. */
  recordTo?: string | undefined;
  /** Real time the extraction of one knowledge document may take (then 413). */
  knowledgeExtractMs: number;
}

export function agentSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): AgentSettings {
  const seconds = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    return Number.isFinite(value) && value >= 0 ? value * 1000 : fallback * 1000;
  };
  return {
    trainingPeriodMs: seconds('SVC_AGENT_TRAINING_SECONDS', 2),
    executionTimeoutMs: seconds('SVC_AGENT_TIMEOUT_SECONDS', 30),
    brain:
      env.SVC_AGENT_BRAIN === 'openai' || env.SVC_AGENT_BRAIN === 'replay'
        ? env.SVC_AGENT_BRAIN
        : 'simulated',
    replay: {
      cassette: env.SVC_AGENT_BRAIN_CASSETTE || undefined,
      recordMissing: ['1', 'true', 'yes'].includes(env.SVC_AGENT_BRAIN_RECORD_MISSING ?? ''),
    },
    recordTo: env.SVC_AGENT_BRAIN_RECORD || undefined,
    knowledgeExtractMs: seconds('SVC_KNOWLEDGE_EXTRACT_SECONDS', DEFAULT_EXTRACT_SECONDS),
    openai: {
      baseUrl: env.SVC_OPENAI_BASE_URL ?? 'http://127.0.0.1:11434/v1',
      model: env.SVC_OPENAI_MODEL ?? 'llama3.2',
      apiKey: env.SVC_OPENAI_API_KEY,
    },
  };
}
