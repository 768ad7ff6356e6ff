/**
 * The AI help's client-side rules and messages: the checks before AI Detect calls the server
 * (docs/product.md#form-messages), its toasts (docs/product.md#ai-help), and how confidences are shown.
 */
import type { ToastMessage } from '../stores/toast';
import { planOf } from '../../../api/billing/plans';
import { isValidUrl, serverError } from './products';

export const URL_REQUIRED: ToastMessage = { title: 'URL Required', description: 'Please enter a product URL first.' };
export const INVALID_URL: ToastMessage = { title: 'Invalid URL', description: 'Please enter a valid URL.' };
export const NO_SELECTORS: ToastMessage = { title: 'No selectors found', description: "AI couldn't detect price selectors. Try entering manually." };
export const DETECTION_FAILED: ToastMessage = { title: 'AI Detection Failed', description: 'Could not analyze the page. Please enter selector manually.' };
export const SUGGESTIONS_FAILED: ToastMessage = { title: 'Failed to generate pricing suggestions. Please try again.' };

/** Why AI Detect cannot run on this url yet, or null when it can. */
export function detectUrlProblem(url: string): ToastMessage | null {
  if (!url.trim()) return URL_REQUIRED;
  return isValidUrl(url) ? null : INVALID_URL;
}

/**
 * The toast for a failed detection: the server's own reason when it refused (the plan, a private
 * address, a page it could not read); the spec's text when the server failed or was not reached.
 */
export function detectionFailure(error: unknown): ToastMessage {
  const { status, message } = serverError(error);
  return status !== null && status < 500 && message ? { title: DETECTION_FAILED.title, description: message } : DETECTION_FAILED;
}

/** Whether the user's plan includes AI Detect (the plan the shell shows); true while the user is not known yet: the server decides. */
export function aiDetectionIncluded(user: { subscriptionPlan?: string | null; plan?: string | null } | null | undefined): boolean {
  return !user || planOf(user.subscriptionPlan ?? user.plan).aiDetection;
}

export const AI_DETECT_NOT_IN_PLAN = 'AI Detect is part of the paid plans.';
export const AI_DETECT_UPGRADE = 'Start a free trial';

/** A pricing suggestion's confidence (0-1) as the card shows it: "82% confidence". */
export function confidenceLabel(confidence: number): string {
  return `${Math.round(Math.min(1, Math.max(0, confidence)) * 100)}% confidence`;
}
