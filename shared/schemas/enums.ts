// The enumerations of the schemas as plain constants, without zod: the CLI's option choices
// read them (and its start-up must not load zod), the schemas build their enums from them.

export const AGENT_TYPES = [
  'customer-service',
  'operations',
  'research',
  'sales',
  'custom',
] as const;
export const AUTONOMY_LEVELS = ['L1', 'L2', 'L3', 'L4'] as const;
export const AGENT_STATUSES = ['active', 'paused', 'training', 'archived'] as const;
/** The statuses a PATCH may set (training ends by itself). */
export const AGENT_UPDATE_STATUSES = ['active', 'paused', 'archived'] as const;
export const EXECUTION_STATUSES = [
  'processing',
  'awaiting_approval',
  'completed',
  'failed',
  'cancelled',
] as const;
export const KNOWLEDGE_TYPES = ['faq', 'policy', 'product_info', 'template'] as const;
export const ANALYTICS_PERIODS = ['1d', '7d', '30d', '90d'] as const;
export const ANALYTICS_METRICS = [
  'total_interactions',
  'success_rate',
  'avg_response_time_ms',
  'escalation_rate',
  'customer_satisfaction',
  'actions_by_type',
  'autonomy_performance',
] as const;

export const WEBHOOK_STATUSES = ['active', 'paused', 'failed'] as const;
/** The statuses a PATCH may set (failed is the daemon's verdict). */
export const WEBHOOK_UPDATE_STATUSES = ['active', 'paused'] as const;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
/** What one delivery attempt came to; unknown: sent (or about to be) and never answered. */
export const DELIVERY_ATTEMPT_OUTCOMES = ['unknown', 'delivered', 'failed'] as const;
