"""Reading a decklist: text in every dialect, JSON exports, share links, size limits."""
