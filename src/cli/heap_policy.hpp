// The allocation policy a command can ask for (heap_policy.cpp).
#pragma once

namespace tfx {

// From now on, blocks up to 32 MB come from the heap and stay there when freed (no mmap, munmap
// and page faults per block). For the model commands: call before the forward pass.
void keep_freed_blocks();

// Gives the pages of freed blocks back to the system (malloc_trim): after loading a tokenizer,
// whose construction frees tens of MB in small blocks the forward pass would not reuse, before the
// weights' pages come in (the peak is the weights plus what stays resident).
void release_freed_blocks();

}  // namespace tfx
