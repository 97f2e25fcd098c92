# an earlier pass, before addresses: never read
