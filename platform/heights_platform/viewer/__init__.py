"""Browser pages over the public API: the replay viewer and the rating-history charts."""
