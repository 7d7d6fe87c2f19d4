/** The page envelope shared by MoviePage, PersonPage and TvShowPage. */
export interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  currentPage: number;
  size: number;
  hasNext: boolean;
  hasPrevious: boolean;
}

export function toPage<T>(rows: T[], total: number, page: number, size: number): Page<T> {
  const totalPages = Math.ceil(total / size);
  return {
    content: rows,
    totalElements: total,
    totalPages,
    currentPage: page,
    size,
    hasNext: page + 1 < totalPages,
    hasPrevious: page > 0,
  };
}
