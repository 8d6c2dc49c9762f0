// The core's thread pool: runs the parts of one kernel call on several threads.
//
// `parallel_for(tasks, threads, body)` calls body(t) for every t in [0, tasks) on at most
// `threads` threads, the calling one included, and returns when all are done. Threads take
// the next task from a shared counter, so a worker that starts late simply takes fewer:
// no split is learned or tuned, and since every task is exact on its own, no result depends
// on which thread ran what.
//
// Safe under any caller: several Python threads may run kernels at once (each call's tasks
// are its own; the caller always works on its own tasks, so a busy pool only slows it), and
// a forked child starts with no workers (its first parallel call starts new ones). The first
// exception a task throws (std::bad_alloc, say) is rethrown in the caller once every task
// has stopped. A worker that finds no job watches for the next one for a moment (yielding
// its core) before it sleeps, so the calls of a loop do not each wait for a thread to wake.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace axisops {

// A non-owning reference to a callable `void(int64_t)`.
class TaskRef {
public:
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, TaskRef>>>
    TaskRef(F& f) : obj_(&f), call_([](void* o, int64_t t) { (*static_cast<F*>(o))(t); }) {}
    void operator()(int64_t t) const { call_(obj_, t); }

private:
    void* obj_;
    void (*call_)(void*, int64_t);
};

// Runs body(t) for t in [0, tasks) on up to `threads` threads (the caller included).
void parallel_for(int64_t tasks, int threads, TaskRef body);

template <class F>
void parallel_for(int64_t tasks, int threads, F&& body) {
    auto& ref = body;
    parallel_for(tasks, threads, TaskRef(ref));
}

// Worker threads started so far (for tests and `axisops info`).
int pool_workers();

// Calls of parallel_for that ran on more than one thread so far (for tests).
int64_t pool_jobs();

// Jobs that a worker joined while it watched for work after its last (for tests).
int64_t pool_joined_awake();

// Sets how long (microseconds, default 200) a worker that finds no job watches for the next
// before it sleeps; returns the previous setting (for tests: 0 makes it sleep at once).
int64_t set_pool_watch(int64_t microseconds);

}  // namespace axisops
