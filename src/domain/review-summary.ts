/**
 * Turns a movie's review statistics into the agent-facing summary of docs/contract.md, Review summaries. Pure: the same
 * statistics always give the same summary, so it is tested without a database.
 */

export interface ReviewSummary {
  reviewCount: number;
  summary: string | null;
  themes: string[];
  averageScore: number | null;
}

/** Fewer reviews than this give an average but no verdict: two opinions are not a consensus. */
const MIN_REVIEWS_FOR_SUMMARY = 3;
const MAX_THEMES = 5;
/**
 * Themes come from this many of the newest comments: what reviewers say now, at a cost that does not
 * grow with a movie's popularity (a movie with 5,000 reviews would otherwise be read in full each time).
 */
export const THEME_SAMPLE_SIZE = 100;

/** What the summary is built from; the store computes count and total in SQL. */
export interface ReviewStats {
  reviewCount: number;
  /** Sum of the scores: the average is this over the count, divided once, as a double. */
  scoreTotal: number;
  /** The newest comments first, at most THEME_SAMPLE_SIZE of them. */
  recentComments: readonly (string | null)[];
}

const STOP_WORDS = new Set(
  `a about above after again against all almost also am an and any are as at be because been before being
  below between both but by can could did do does doing down during each even ever every few for from further
  had has have having he her here hers herself him himself his how i if in into is it its itself just least
  less like made make makes many me more most much must my myself never no nor not now of off often on once
  one only or other our ours ourselves out over own quite rather really same she should so some still such
  than that the their theirs them themselves then there these they this those though through to too under
  until up upon us very was we well were what when where which while who whom why will with within without
  would yet you your yours yourself yourselves film films movie movies watch watched`.split(/\s+/),
);

function verdict(average: number): string {
  if (average > 7) return 'favourable';
  if (average < 5) return 'unfavourable';
  return 'split';
}

/** Distinct meaningful words, most frequent first, first appearance breaking ties. */
export function extractThemes(comments: readonly (string | null)[], limit = MAX_THEMES): string[] {
  const counts = new Map<string, number>();
  for (const comment of comments) {
    for (const word of (comment ?? '').toLowerCase().match(/[a-z]+(?:'[a-z]+)?/g) ?? []) {
      if (word.length < 4 || STOP_WORDS.has(word) || word.includes("'")) continue;
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return [...counts.entries()]
    .map(([word, count], order) => ({ word, count, order }))
    .sort((a, b) => b.count - a.count || a.order - b.order)
    .slice(0, limit)
    .map((entry) => entry.word);
}

export function summarizeReviews(stats: ReviewStats): ReviewSummary {
  const { reviewCount } = stats;
  if (reviewCount === 0) return { reviewCount, summary: null, themes: [], averageScore: null };
  const averageScore = stats.scoreTotal / reviewCount;
  if (reviewCount < MIN_REVIEWS_FOR_SUMMARY) return { reviewCount, summary: null, themes: [], averageScore };
  const summary = `Reviewers are ${verdict(averageScore)} overall, with an average score of ${averageScore.toFixed(1)} out of 10 from ${reviewCount} reviews.`;
  return { reviewCount, summary, themes: extractThemes(stats.recentComments), averageScore };
}
