import { describe, expect, test } from 'bun:test';
import { aiDetectionIncluded, confidenceLabel, DETECTION_FAILED, detectionFailure, detectUrlProblem, INVALID_URL, URL_REQUIRED } from './ai';
import { ApiError } from './api';

describe('AI Detect', () => {
  test('checks the url first', () => {
    expect(detectUrlProblem('')).toEqual(URL_REQUIRED);
    expect(detectUrlProblem('   ')).toEqual({ title: 'URL Required', description: 'Please enter a product URL first.' });
    expect(detectUrlProblem('competitor.com/kettle')).toEqual({ title: 'Invalid URL', description: 'Please enter a valid URL.' });
    expect(detectUrlProblem('ftp://competitor.com/kettle')).toEqual(INVALID_URL);
    expect(detectUrlProblem(' https://competitor.com/kettle ')).toBeNull();
  });

  test("the server's reason when it refused; the spec's failure when it failed or was not reached", () => {
    const message = 'AI price detection is not part of the Free plan.';
    expect(detectionFailure(new ApiError(403, JSON.stringify({ message }), 'Forbidden'))).toEqual({ title: 'AI Detection Failed', description: message });
    expect(detectionFailure(new ApiError(422, JSON.stringify({ message: 'The page could not be analysed: it timed out.' }), ''))).toEqual({
      title: 'AI Detection Failed',
      description: 'The page could not be analysed: it timed out.',
    });
    expect(detectionFailure(new ApiError(400, JSON.stringify({ message: 'url: private addresses are not checked', field: 'url' }), ''))).toEqual({
      title: 'AI Detection Failed',
      description: 'private addresses are not checked',
    });
    expect(detectionFailure(new ApiError(500, JSON.stringify({ message: 'Something went wrong on our side.' }), ''))).toEqual(DETECTION_FAILED);
    expect(detectionFailure(new Error('Failed to fetch'))).toEqual({
      title: 'AI Detection Failed',
      description: 'Could not analyze the page. Please enter selector manually.',
    });
  });
});

describe('AI Detect by plan', () => {
  test('included in paid plans, by the subscription plan first; assumed while the user is not known', () => {
    expect(aiDetectionIncluded({ plan: 'free', subscriptionPlan: null })).toBe(false);
    expect(aiDetectionIncluded({ plan: 'free', subscriptionPlan: 'starter' })).toBe(true);
    expect(aiDetectionIncluded({ plan: 'pro', subscriptionPlan: null })).toBe(true);
    expect(aiDetectionIncluded({ plan: 'nonsense' })).toBe(false);
    expect(aiDetectionIncluded(null)).toBe(true);
  });
});

describe('AI Pricing Insights', () => {
  test('confidence as a percent', () => {
    expect(confidenceLabel(0.823)).toBe('82% confidence');
    expect(confidenceLabel(1)).toBe('100% confidence');
    expect(confidenceLabel(1.4)).toBe('100% confidence');
  });
});
