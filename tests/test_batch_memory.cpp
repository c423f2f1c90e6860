// The command line's batch memory policy (runtime/batch_memory.hpp): after it, a block of tens of MiB
// comes from the allocator's heap, not a mapping of its own, and stays there once freed. glibc's
// default, checked first in the same process, is the independent answer: the block mapped alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "portacl/runtime/batch_memory.hpp"
#include "portacl/runtime/error.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

bool sanitizerAllocator() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
    return true;
#endif
#endif
    return false;
}

}  // namespace

TEST(BatchMemory, BlocksOfTensOfMebibytesComeFromTheHeapAndStayThere) {
#if !defined(__GLIBC__)
    GTEST_SKIP() << "the policy is glibc's mallopt";
#else
    if (sanitizerAllocator()) GTEST_SKIP() << "a sanitizer replaces the allocator";
    if (const char* c = std::getenv("PORTACL_BATCH_MALLOC"); c && std::strcmp(c, "system") == 0)
        GTEST_SKIP() << "PORTACL_BATCH_MALLOC=system";
    // A misspelt choice is refused in one sentence, and changes nothing.
    ::setenv("PORTACL_BATCH_MALLOC", "sytem", 1);
    EXPECT_THROW(portacl::keepFreedMemoryForBatches(), portacl::Error);
    ::unsetenv("PORTACL_BATCH_MALLOC");
    // Above the largest threshold glibc moves its own to (32 MiB), below the policy's (64 MiB).
    const std::size_t bytes = std::size_t(48) << 20;
    const auto mapped = [] { return mallinfo2().hblkhd; };  // bytes in blocks mapped on their own
    const std::size_t before = mapped();
    void* p = std::malloc(bytes);
    ASSERT_NE(p, nullptr);
    std::memset(p, 1, bytes);
    EXPECT_GE(mapped(), before + bytes) << "glibc's default maps a block this large on its own";
    std::free(p);

    portacl::keepFreedMemoryForBatches();
    const std::size_t mappedBefore = mapped();
    void* q = std::malloc(bytes);
    ASSERT_NE(q, nullptr);
    std::memset(q, 2, bytes);
    EXPECT_EQ(mapped(), mappedBefore) << "the block is still mapped on its own";
    std::free(q);
    EXPECT_GE(mallinfo2().fordblks, bytes) << "the freed block went back to the kernel";
#endif
}
