import { describe, expect, it } from 'vitest';
import { extractThemes, summarizeReviews } from '../../src/domain/review-summary.js';

const review = (score: number, comment: string | null = null) => ({ score, comment });
/** The statistics the store computes for these reviews (given newest first). */
const statsOf = (...reviews: { score: number; comment: string | null }[]) => ({
  reviewCount: reviews.length,
  scoreTotal: reviews.reduce((sum, r) => sum + r.score, 0),
  recentComments: reviews.map((r) => r.comment),
});

describe('summarizeReviews', () => {
  it('is favourable above 7, unfavourable below 5 and split otherwise, with the average to one decimal', () => {
    expect(summarizeReviews(statsOf(review(8), review(7), review(7))).summary).toMatch(/favourable.*7\.3/);
    expect(summarizeReviews(statsOf(review(7), review(7), review(7))).summary).toMatch(/split.*7\.0/);
    expect(summarizeReviews(statsOf(review(5), review(5), review(5))).summary).toMatch(/split.*5\.0/);
    expect(summarizeReviews(statsOf(review(4), review(5), review(5))).summary).toMatch(/unfavourable.*4\.7/);
  });

  it('keeps the raw average and gives no summary or themes below three reviews', () => {
    expect(summarizeReviews(statsOf(review(9, 'superb acting'), review(6)))).toEqual({
      reviewCount: 2,
      summary: null,
      themes: [],
      averageScore: 7.5,
    });
    expect(summarizeReviews(statsOf())).toEqual({
      reviewCount: 0,
      summary: null,
      themes: [],
      averageScore: null,
    });
  });
});

describe('extractThemes', () => {
  it('returns up to five distinct meaningful words, most frequent first, stop words removed', () => {
    const themes = extractThemes([
      'The acting is superb and the score is haunting.',
      'Superb acting, a haunting score; the pacing drags.',
      'Acting carries it. This is a movie about grief.',
    ]);
    expect(themes).toEqual(['acting', 'superb', 'score', 'haunting', 'pacing']);
    expect(themes).not.toContain('the');
  });

  it('handles null comments and punctuation-only text', () => {
    expect(extractThemes([null, '!!!', ''])).toEqual([]);
  });
});
