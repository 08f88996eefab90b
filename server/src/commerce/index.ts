/** Commerce (issue 14): SKUs, entitlements, subscriptions, their state machine and scheduler. */
export { type Clock, systemClock } from './clock.ts';
export { type CommerceDispatch, CommerceEvents } from './CommerceEvents.ts';
export { CommerceService, type CreateSkuInput, type EntitlementQuery } from './CommerceService.ts';
export { CommerceErrors } from './errors.ts';
export { CheckoutService, type CheckoutResult } from './CheckoutService.ts';
export { type PaymentRequest, type PaymentResult, type PaymentStep, TestModePayment } from './payment.ts';
export { type SchedulerOptions, SubscriptionScheduler } from './SubscriptionScheduler.ts';
export { SubscriptionMachine, type SubscriptionTrigger, type TransitionResult } from './subscriptionMachine.ts';
export * from './wire.ts';
