/** How many rows a page of an administration listing holds. */
export const PER_PAGE = 25;
