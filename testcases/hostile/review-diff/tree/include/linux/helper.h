static __always_inline void helper(void) { }
