"""Errors of the scheduler package.

    SchedulerError (base)
    ├── GateError
    │   ├── GateCapacityError   a model larger than the whole budget: it can never be admitted
    │   ├── GateTimeoutError    nothing could be evicted in time to admit a model
    │   └── PreemptedError      queue work whose model was evicted; it resumes from its checkpoint
    ├── UnknownModelError       a model id the registry was never told about
    └── SchedulerStateError     the persisted reminder / proactive state cannot be read

Every message is written to be shown to a person as it is.
"""

from __future__ import annotations


class SchedulerError(Exception):
    """Base of every error raised by ``familiars.scheduler``."""


class GateError(SchedulerError):
    """The VRAM gate could not give out what was asked."""


class GateCapacityError(GateError, ValueError):
    def __init__(self, model_id: str, estimated_mb: float, budget_mb: float) -> None:
        super().__init__(
            f"model {model_id!r} needs {estimated_mb:.0f} MB but the whole GPU budget is "
            f"{budget_mb:.0f} MB; it can never be loaded (raise gate.budget_mb or use a "
            f"smaller model)"
        )
        self.model_id = model_id
        self.estimated_mb = estimated_mb
        self.budget_mb = budget_mb


class GateTimeoutError(GateError, TimeoutError):
    def __init__(self, model_id: str, estimated_mb: float, waited_s: float, detail: str) -> None:
        super().__init__(
            f"could not load model {model_id!r} ({estimated_mb:.0f} MB) within {waited_s:.1f} s: "
            f"{detail}"
        )
        self.model_id = model_id
        self.estimated_mb = estimated_mb
        self.waited_s = waited_s


class PreemptedError(GateError):
    def __init__(self, model_id: str) -> None:
        super().__init__(
            f"work on model {model_id!r} was interrupted to make room for a user request; "
            f"it resumes from its checkpoint"
        )
        self.model_id = model_id


class UnknownModelError(SchedulerError, KeyError):
    def __init__(self, model_id: str) -> None:
        super().__init__(model_id)
        self.model_id = model_id

    def __str__(self) -> str:
        return f"no model registered under {self.model_id!r}"


class SchedulerStateError(SchedulerError, ValueError):
    """The scheduler's state file is unreadable; it is left untouched for a person to fix."""
