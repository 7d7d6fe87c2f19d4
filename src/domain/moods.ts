/** What each mood means in catalogue terms (docs/contract.md, Recommendations). */
import type { GenreName } from '../store/tables.js';

export type MoodName = 'COMFORT' | 'ADVENTURE' | 'ROMANCE' | 'HORROR' | 'THOUGHTFUL' | 'COMEDY';

export interface MoodRule {
  genres: readonly GenreName[];
  minRating: number;
  /** Longest runtime in minutes; a movie of unknown runtime still qualifies. */
  maxRuntime?: number;
}

export const MOOD_RULES: Record<MoodName, MoodRule> = {
  COMFORT: { genres: ['COMEDY', 'ROMANCE', 'FANTASY'], minRating: 7.0, maxRuntime: 140 },
  ADVENTURE: { genres: ['ACTION', 'FANTASY', 'SCIFI', 'WESTERN'], minRating: 6.5 },
  ROMANCE: { genres: ['ROMANCE', 'DRAMA'], minRating: 6.5 },
  HORROR: { genres: ['HORROR', 'THRILLER', 'MYSTERY'], minRating: 6.0 },
  THOUGHTFUL: { genres: ['DRAMA', 'SCIFI', 'WAR', 'MYSTERY', 'CRIME'], minRating: 7.5 },
  COMEDY: { genres: ['COMEDY', 'ROMANCE'], minRating: 6.0 },
};

export const MAX_RECOMMENDATIONS = 10;
