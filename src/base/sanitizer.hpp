// OPENETW_TSAN: 1 when built with ThreadSanitizer (GCC or Clang), where
// code TSan cannot model (fences, process-wide barriers) takes another way.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define OPENETW_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OPENETW_TSAN 1
#endif
#endif
