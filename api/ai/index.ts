import type { Module } from '../module.ts';
import { aiRoutes } from './routes.ts';

/** AI Detect (verified price selectors) and pricing insights. */
export const aiModule = {
  name: 'ai',
  routes: aiRoutes,
} satisfies Module;
