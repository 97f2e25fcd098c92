# an older dump of the same run: never read
